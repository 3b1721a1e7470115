// Reads each LNURL given on the command line with js-lnurl's getParams, as
// LNURL wallets do, and prints what it read as one JSON object keyed by
// the LNURL.
const { getParams } = require('js-lnurl');

(async () => {
  const out = {};
  for (const lnurl of process.argv.slice(2)) {
    out[lnurl] = await getParams(lnurl);
  }
  process.stdout.write(JSON.stringify(out));
})().catch((err) => {
  console.error(err);
  process.exit(1);
});
