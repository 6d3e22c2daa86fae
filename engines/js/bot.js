#!/usr/bin/env node
// capture-most: a Scopa Arena bot in JavaScript (Node.js, @grpc/grpc-js).
//
// It reads nothing but the protocol files in proto/arena/wire/v1/ and plays a
// simple policy: take the settebello if it can, else the capture that takes
// the most cards (a sweep first), else lay its lowest card.
//
//   node bot.js [--listen HOST:PORT]      (default $SCOPA_BOT_LISTEN or 127.0.0.1:0)
//
// Once it accepts calls it prints "LISTENING HOST:PORT": the arena waits for
// that line when it launches the bot itself.
"use strict";

const path = require("path");
const grpc = require("@grpc/grpc-js");
const protoLoader = require("@grpc/proto-loader");

const PROTO_ROOT = path.resolve(__dirname, "../../proto");
const definition = protoLoader.loadSync("arena/wire/v1/engine.proto", {
  includeDirs: [PROTO_ROOT],
  keepCase: true,
  enums: String, // enum values as their names, e.g. "DENARI"
  longs: Number,
  defaults: true,
});
const scopa = grpc.loadPackageDefinition(definition).scopa.v1;

function cardValue(card) {
  // A little weight for what a card is worth at the end of the deal.
  let value = 1;
  if (card.suit === "DENARI") value += 1;
  if (card.suit === "DENARI" && card.rank === 7) value += 10;
  if (card.rank === 7) value += 2;
  return value;
}

// The policy needs only the legal moves and the table's size. The observation
// holds everything else a seat may know (scopa.proto, Observation), including
// what a player remembers of the deal, for a strategy that wants it:
//   obs.captured_cards[side].cards   each side's captured cards (side 0, 1)
//   obs.last_capture_seat            the seat that captured last; undefined
//                                    while nobody has (0 is seat 0)
//   obs.opening_table                the table as dealt at the deal's start
// and the target and deal limit in obs.variant.
function choose(request) {
  const moves = request.legal_moves;
  const tableSize = request.observation.table.length;
  let best = moves[0];
  let bestScore = -Infinity;
  for (const move of moves) {
    let score;
    if (move.captures.length > 0) {
      score = 100 + move.captures.reduce((s, c) => s + cardValue(c), cardValue(move.card));
      if (move.captures.length === tableSize) score += 50; // a sweep
    } else {
      score = -cardValue(move.card) * 10 - move.card.rank; // lay the cheapest card
    }
    if (score > bestScore) {
      bestScore = score;
      best = move;
    }
  }
  return best;
}

// The answer to one decision, on Decide and on Play alike: [error, response].
function answer(request) {
  if (request.legal_moves.length === 0) {
    return [{ code: grpc.status.INVALID_ARGUMENT, details: "no legal moves" }, null];
  }
  try {
    return [null, { move: choose(request), comment: "" }];
  } catch (err) {
    return [{ code: grpc.status.INTERNAL, details: String(err) }, null];
  }
}

const service = {
  Handshake: (call, callback) =>
    callback(null, {
      name: "capture-most-js",
      version: "1.0.0",
      author: "Scopa Arena",
      protocol_version: "PROTOCOL_VERSION_1",
      games: [], // all four games
      // It picks among the legal moves the arena sends, so the options that only
      // change which moves are legal are safe; the scoring ones it does not value.
      options: ["OPTION_FEWEST_CARDS", "OPTION_LEFTOVERS_TO_LAST_PLAYER"],
    }),
  Decide: (call, callback) => {
    const [error, response] = answer(call.request);
    callback(error, response);
  },
  // Decide as a stream: every decision of a match, one at a time, each
  // answered as Decide answers it. 'end' is the arena half-closing the stream
  // (the match is over: end it OK); 'cancelled' is the arena cancelling it (a
  // decision ran out of time: grpc-js destroys the stream, nothing is left to
  // do); an 'error' ends it (grpc-js sends the status).
  Play: (call) => {
    let ended = false;
    call.on("data", (request) => {
      if (ended) return;
      const [error, response] = answer(request);
      if (error) {
        ended = true;
        call.emit("error", error); // ends the stream with Decide's status
      } else {
        call.write(response);
      }
    });
    call.on("end", () => {
      if (!ended) call.end();
      ended = true;
    });
    call.on("cancelled", () => {
      ended = true;
    });
    call.on("error", () => {
      ended = true;
    });
  },
  MatchStarted: (call, callback) => callback(null, {}),
  DealEnded: (call, callback) => callback(null, {}),
  MatchEnded: (call, callback) => callback(null, {}),
};

function listenAddress() {
  const i = process.argv.indexOf("--listen");
  if (i >= 0 && process.argv[i + 1]) return process.argv[i + 1];
  return process.env.SCOPA_BOT_LISTEN || "127.0.0.1:0";
}

const server = new grpc.Server({
  "grpc.max_receive_message_length": 64 * 1024,
  "grpc.max_send_message_length": 64 * 1024,
});
server.addService(scopa.Engine.service, service);
const address = listenAddress();
server.bindAsync(address, grpc.ServerCredentials.createInsecure(), (err, port) => {
  if (err) {
    console.error(`cannot listen on ${address}: ${err.message}`);
    process.exit(1);
  }
  const shown = address.startsWith("unix:") ? address : `${address.replace(/:\d+$/, "")}:${port}`;
  process.stdout.write(`LISTENING ${shown}\n`);
});

for (const signal of ["SIGTERM", "SIGINT"]) {
  process.on(signal, () => server.tryShutdown(() => process.exit(0)));
}
