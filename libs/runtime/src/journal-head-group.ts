/** The throwaway consumer groups that read the journal topic's head (the ACL table grants the prefix; ADR 0055). */
export const JOURNAL_HEAD_READER_GROUP_PREFIX = 'arvis-journal-head-';
