// An app of Hearth's Wallet Connect, written with @getalby/sdk as apps
// write it; plugins/nwc/sdk_test.go runs it. It reads one JSON object of
// arguments from argv[2] and writes one JSON line per step to stdout:
//
//   {"mode":"nwc","relay","walletPubkey","secret","payInvoice"}: an
//   NWCClient for a connection made with the app's own pubkey calls
//   get_info, get_balance, make_invoice and pay_invoice;
//   {"mode":"hold","relay","walletPubkey","secret","preimage","hash",
//   "cancelHash"}: an NWCClient listens for hold_invoice_accepted, makes a
//   hold invoice of hash, says "accepted" with the notification once it is
//   paid, looks it up and settles it with the preimage; then makes one of
//   cancelHash and cancels it once it is paid;
//   {"mode":"nwa","relay","secret"}: an NWAClient prints its
//   nostr+walletauth URI, waits (subscribe) for the wallet to accept it,
//   then calls get_balance with the client it resolves to.
import { NWCClient, NWAClient } from "@getalby/sdk";

if (typeof WebSocket === "undefined") {
  console.error("no WebSocket in this Node: run it with --experimental-websocket (Node 20) or on Node 22+");
  process.exit(2);
}

const args = JSON.parse(process.argv[2]);
const say = (step, value) => console.log(JSON.stringify({ step, value }));
const fail = (err) => {
  console.log(JSON.stringify({ step: "error", value: String(err && err.stack ? err.stack : err), code: err && err.code }));
  process.exit(1);
};
setTimeout(() => fail(new Error("timed out")), 60_000).unref();

async function nwc() {
  const client = new NWCClient({ relayUrls: [args.relay], walletPubkey: args.walletPubkey, secret: args.secret });
  say("info", await client.getInfo());
  say("balance", await client.getBalance());
  say("invoice", await client.makeInvoice({ amount: 21_000, description: "from the SDK" }));
  say("paid", await client.payInvoice({ invoice: args.payInvoice }));
  try {
    await client.getBudget();
    say("budget", "answered");
  } catch (err) {
    say("budget", err.code || String(err));
  }
  client.close();
}

async function hold() {
  const client = new NWCClient({ relayUrls: [args.relay], walletPubkey: args.walletPubkey, secret: args.secret });
  const accepted = [];
  let wake = () => {};
  await client.subscribeNotifications((n) => {
    accepted.push(n);
    wake();
  }, ["hold_invoice_accepted"]);
  const nextAccepted = () =>
    accepted.length > 0 ? Promise.resolve(accepted.shift()) : new Promise((resolve) => { wake = () => resolve(accepted.shift()); });
  say("hold", await client.makeHoldInvoice({ amount: 8_000, description: "escrow", payment_hash: args.hash }));
  say("accepted", await nextAccepted());
  say("lookup", await client.lookupInvoice({ payment_hash: args.hash }));
  say("settled", await client.settleHoldInvoice({ preimage: args.preimage }));
  say("hold", await client.makeHoldInvoice({ amount: 3_000, payment_hash: args.cancelHash }));
  say("accepted", await nextAccepted());
  say("cancelled", await client.cancelHoldInvoice({ payment_hash: args.cancelHash }));
  client.close();
}

async function nwa() {
  const app = new NWAClient({
    relayUrls: [args.relay],
    appSecretKey: args.secret,
    requestMethods: ["get_info", "get_balance", "make_invoice", "sign_message"],
    notificationTypes: ["payment_received"],
    name: "SDK app",
    maxAmount: 5000,
    budgetRenewal: "weekly",
  });
  const resolved = new Promise((resolve) => {
    app.subscribe({ onSuccess: resolve }).catch(fail);
  });
  say("uri", app.connectionUri);
  const client = await resolved;
  say("walletPubkey", client.walletPubkey);
  say("balance", await client.getBalance());
  client.close();
  app.close();
}

const modes = { nwa, hold, nwc };
(modes[args.mode] || nwc)().then(() => process.exit(0), fail);
