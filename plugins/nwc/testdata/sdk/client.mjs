// An app of Hearth's Wallet Connect, written with @getalby/sdk as apps
// write it; plugins/nwc/sdk_test.go runs it. It reads one JSON object of
// arguments from argv[2] and writes one JSON line per step to stdout:
//
//   {"mode":"nwc","relay","walletPubkey","secret","payInvoice"}: an
//   NWCClient for a connection made with the app's own pubkey calls
//   get_info, get_balance, make_invoice and pay_invoice;
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

(args.mode === "nwa" ? nwa() : nwc()).then(() => process.exit(0), fail);
