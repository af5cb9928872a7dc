// The beta pool's fixture package (ADR 0081): beta.echo, the same tool shape as alpha's.
module.exports.toolPackage = require('../pool-alpha').echoPackage('beta', '1.0.0', 200);
