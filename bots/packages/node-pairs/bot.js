// A hosted Node.js bot: raises with a pair among its own cards, otherwise checks or calls.
// The sandbox sets ARENA_SERVER (the dealer's Unix socket), ARENA_TOKEN (this instance's
// token), ARENA_PROTO_ROOT (the wire contract) and NODE_PATH (@grpc/grpc-js, proto-loader).
'use strict';

const grpc = require('@grpc/grpc-js');
const protoLoader = require('@grpc/proto-loader');

const definition = protoLoader.loadSync('arena/v1/arena.proto', {
  includeDirs: [process.env.ARENA_PROTO_ROOT], keepCase: true, longs: Number, enums: String,
  defaults: true, oneofs: true,
});
const arena = grpc.loadPackageDefinition(definition).arena.v1;

function decide(request) {
  const legal = new Set(request.legal_actions.map((a) => a.kind));
  const me = request.seats.find((s) => s.seat === request.your_seat) || { up_cards: [] };
  const ranks = request.hole_cards.concat(me.up_cards || []).map((c) => c[0]);
  const paired = ranks.some((r, i) => ranks.indexOf(r) !== i);
  for (const kind of [legal.has('ACTION_KIND_BRING_IN') && 'ACTION_KIND_BRING_IN',
    paired && legal.has('ACTION_KIND_RAISE') && 'ACTION_KIND_RAISE',
    legal.has('ACTION_KIND_CHECK') && 'ACTION_KIND_CHECK', 'ACTION_KIND_CALL']) {
    if (kind === 'ACTION_KIND_RAISE') {
      const raise = request.legal_actions.find((a) => a.kind === kind);
      return { kind, raise_to_chips: raise.min_raise_to_chips };
    }
    if (kind) return { kind, raise_to_chips: 0 };
  }
  return { kind: 'ACTION_KIND_FOLD', raise_to_chips: 0 };
}

const client = new arena.Dealer(process.env.ARENA_SERVER, grpc.credentials.createInsecure());
const metadata = new grpc.Metadata();
metadata.set('authorization', `Bearer ${process.env.ARENA_TOKEN}`);
const call = client.Play(metadata);
call.write({ hello: { bot_name: 'node-pairs', protocol_version: 1, accept_batches: true,
  subscription: 'SUBSCRIPTION_REQUESTS_AND_RESULTS' } });
let decisions = 0;
call.on('data', (envelope) => {
  const messages = envelope.payload === 'batch' ? envelope.batch.messages : [envelope];
  for (const message of messages) {
    if (message.payload !== 'decision_request') continue;
    const request = message.decision_request;
    call.write({ action_reply: { decision_id: request.decision_id, seat: request.your_seat,
      action: decide(request) } });
    decisions += 1;
  }
});
call.on('error', (err) => { console.error(`node-pairs: ${err.code}: ${err.details}`); });
call.on('end', () => { console.log(`node-pairs: ${decisions} decisions`); client.close(); });
