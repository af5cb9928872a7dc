// kafkajs 2.2.4's timers, put right at load time wherever kafkajs runs: the apps (through
// @arvis/kafka) and the packed decision client, whose users install kafkajs from the registry
// and so never get this repository's patches/ (ADRs 0045, 0059). No other dependency.
export { fixLoadedKafkajs, replaceIdleTimerLoop, type IdleTimerFixOutcome, type RequestQueueClass } from './kafkajs-idle-timer-fix';
export { fixLoadedKafkajsRequestTimeouts, replaceRequestTimeoutInterval, type RequestTimeoutFixOutcome, type RequestTimeoutQueueClass } from './kafkajs-request-timeout-fix';
