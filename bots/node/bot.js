#!/usr/bin/env node
// An example arena bot in Node.js.
//
//   npm install
//   node bot.js --server 127.0.0.1:50051 --token <token> [--name node-bot]
//
// It loads the wire contract (protos/arena/v1/arena.proto) at run time with
// @grpc/proto-loader, opens one Dealer.Play stream with the token in the
// `authorization` metadata, says hello, and answers every DecisionRequest:
// it raises with a pair among its own cards (or a big enough pocket pair),
// calls one bet otherwise, and folds to more. Amounts are "raise to" totals,
// exactly the min or max of the legal RAISE. It exits when the dealer ends the
// stream: 0 on a normal end (all matches over), 1 otherwise.
'use strict';

const path = require('path');
const grpc = require('@grpc/grpc-js');
const protoLoader = require('@grpc/proto-loader');

const PROTO_ROOT = process.env.ARENA_PROTO_ROOT || path.join(__dirname, '..', '..', 'protos');

function parseArgs(argv) {
  const args = { server: '127.0.0.1:50051', token: '', name: 'node-bot' };
  for (let i = 0; i < argv.length; i += 2) {
    const key = argv[i].replace(/^--/, '');
    if (!(key in args)) throw new Error(`unknown option --${key}`);
    args[key] = argv[i + 1];
  }
  if (!args.token) throw new Error('--token is required');
  return args;
}

const RANKS = '23456789TJQKA';

function rankOf(card) {
  return RANKS.indexOf(card[0]) + 2;
}

function legalMap(request) {
  const out = {};
  for (const legal of request.legal_actions) out[legal.kind] = legal;
  return out;
}

// The whole strategy: a pair among my own cards (or a pocket pair of nines or better in the
// flop games) raises; otherwise check, or call up to one bet; fold to more.
function choose(request) {
  const legal = legalMap(request);
  const me = request.seats.find((s) => s.seat === request.your_seat) || { up_cards: [] };
  const mine = request.hole_cards.concat(me.up_cards || []);
  const ranks = mine.map(rankOf);
  const paired = ranks.some((r, i) => ranks.indexOf(r) !== i);
  const highPair = paired && ranks.some((r, i) => ranks.indexOf(r) !== i && r >= 9);
  if (legal.ACTION_KIND_BRING_IN) {
    return { kind: 'ACTION_KIND_BRING_IN', raise_to_chips: 0 };
  }
  if (legal.ACTION_KIND_RAISE && (highPair || (paired && request.board_cards.length === 0))) {
    return { kind: 'ACTION_KIND_RAISE', raise_to_chips: legal.ACTION_KIND_RAISE.min_raise_to_chips };
  }
  if (legal.ACTION_KIND_CHECK) return { kind: 'ACTION_KIND_CHECK', raise_to_chips: 0 };
  const toCall = Number(request.amount_to_call_chips);
  if (legal.ACTION_KIND_CALL && (paired || toCall <= Number(request.bet_size_chips))) {
    return { kind: 'ACTION_KIND_CALL', raise_to_chips: 0 };
  }
  return { kind: 'ACTION_KIND_FOLD', raise_to_chips: 0 };
}

function unbatch(message) {
  return message.payload === 'batch' ? message.batch.messages : [message];
}

function main() {
  const args = parseArgs(process.argv.slice(2));
  const definition = protoLoader.loadSync('arena/v1/arena.proto', {
    includeDirs: [PROTO_ROOT],
    keepCase: true, // field names exactly as in the .proto (snake_case)
    longs: Number, // int64 chips as JS numbers
    enums: String, // enum values as their names
    defaults: true, // unset fields read as 0 / "" / [] like in proto3
    oneofs: true, // `payload` names the oneof field that is set
  });
  const arena = grpc.loadPackageDefinition(definition).arena.v1;
  const client = new arena.Dealer(args.server, grpc.credentials.createInsecure());
  const metadata = new grpc.Metadata();
  metadata.set('authorization', `Bearer ${args.token}`);
  const call = client.Play(metadata);

  let decisions = 0;
  let matchesEnded = 0;
  call.write({ hello: { bot_name: args.name, bot_version: '0.1.0', protocol_version: 1, accept_batches: true } });

  call.on('data', (envelope) => {
    for (const message of unbatch(envelope)) {
      if (message.payload === 'decision_request') {
        const request = message.decision_request;
        const started = process.hrtime.bigint();
        const action = choose(request);
        const thinkSeconds = Number(process.hrtime.bigint() - started) / 1e9;
        call.write({
          action_reply: {
            decision_id: request.decision_id,
            seat: request.your_seat,
            action,
            think_seconds: thinkSeconds,
          },
        });
        decisions += 1;
      } else if (message.payload === 'action_rejected') {
        console.error(`rejected: ${message.action_rejected.message}`);
      } else if (message.payload === 'event' && message.event.payload === 'match_ended') {
        matchesEnded += 1;
      }
    }
  });
  call.on('error', (err) => {
    console.error(`arena-node-bot: stream ended: ${err.code} ${err.details}`);
    process.exitCode = 1;
  });
  call.on('end', () => {
    console.log(`arena-node-bot ${args.name}: ${decisions} decisions, ${matchesEnded} match(es) ended`);
    call.end();
    client.close();
  });
}

main();
