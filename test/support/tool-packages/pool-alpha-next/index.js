// The pool-alpha fixture at its next version: alpha.echo takes texts up to 400 characters, so the
// alpha pool's catalog fingerprint changes; the beta pool's must not (ADR 0081).
module.exports.toolPackage = require('../pool-alpha').echoPackage('alpha', '1.1.0', 400);
