// An independent implementation of docs/seeds.md, written from the document
// with nothing but node's crypto module, so that the test suite checks that
// the specification (not just our Python) gives the published test vectors.
//
// Input on stdin, JSON: a list of requests, each
//   {"master": TEXT, "set_id": TEXT}   a tournament's set: its commitment and set seed
//   {"seed": "DECIMAL"}                a match seed
// with "decks": [[DEAL, ATTEMPT], ...] to derive; or
//   {"below": N, "words": [...]}       one draw from the given words.
// Output on stdout, JSON: one object per request with "commitment" and
// "set_seed" (decimal text) for a set, "first_dealer" for 2 and 4 seats, and
// "decks": {"DEAL/ATTEMPT": [card indices]}, "names": {"DEAL/ATTEMPT": [names]};
// for a draw, {"value": N}.
// Run: node tests/seeds/derive.mjs < requests.json

import { createHash } from "node:crypto";

const utf8 = (text) => Buffer.from(text, "utf8");
const sha256 = (bytes) => createHash("sha256").update(bytes).digest();

function commitment(master) {
  return sha256(Buffer.concat([utf8("scopa-arena/commitment/v1/"), utf8(master)])).toString("hex");
}

function setSeed(master, setId) {
  const raw = utf8(master);
  const message = Buffer.concat([
    utf8(`scopa-arena/set-seed/v1/${raw.length}/`),
    raw,
    utf8("/"),
    utf8(setId),
  ]);
  return sha256(message).readBigUInt64BE(0) & ((1n << 63n) - 1n);
}

// The stream of a label: SHA-256 of "LABEL/k" for k = 0, 1, ..., as big-endian uint32s.
function* words(label) {
  for (let k = 0; ; k++) {
    const block = sha256(utf8(`${label}/${k}`));
    for (let i = 0; i < 32; i += 4) yield block.readUInt32BE(i);
  }
}

function below(n, stream) {
  const limit = 2 ** 32 - (2 ** 32 % n);
  for (;;) {
    const { value: x, done } = stream.next();
    if (done) throw new Error("the words ran out");
    if (x < limit) return x % n;
  }
}

function shuffle(n, stream) {
  const order = Array.from({ length: n }, (_, i) => i);
  for (let i = n - 1; i > 0; i--) {
    const j = below(i + 1, stream);
    [order[i], order[j]] = [order[j], order[i]];
  }
  return order;
}

const u64 = (seed) => BigInt.asUintN(64, BigInt(seed)).toString();
const deck = (seed, deal, attempt) =>
  shuffle(40, words(`scopa-arena/deck/v1/${u64(seed)}/${deal}/${attempt}`));
const firstDealer = (seed, seats) => below(seats, words(`scopa-arena/first-dealer/v1/${u64(seed)}`));
const cardName = (c) => "A234567FCR"[c % 10] + "dcsb"[Math.floor(c / 10)];

function derive(request) {
  if ("below" in request) return { value: below(request.below, request.words.values()) };
  const out = {};
  let seed;
  if ("master" in request) {
    out.commitment = commitment(request.master);
    seed = setSeed(request.master, request.set_id);
    out.set_seed = seed.toString();
  } else {
    seed = BigInt(request.seed);
  }
  out.first_dealer = { 2: firstDealer(seed, 2), 4: firstDealer(seed, 4) };
  out.decks = {};
  out.names = {};
  for (const [deal, attempt] of request.decks) {
    const cards = deck(seed, deal, attempt);
    out.decks[`${deal}/${attempt}`] = cards;
    out.names[`${deal}/${attempt}`] = cards.map(cardName);
  }
  return out;
}

const chunks = [];
for await (const chunk of process.stdin) chunks.push(chunk);
const requests = JSON.parse(Buffer.concat(chunks).toString("utf8"));
process.stdout.write(JSON.stringify(requests.map(derive)) + "\n");
