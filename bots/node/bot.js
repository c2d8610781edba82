#!/usr/bin/env node
// An example arena bot in Node.js.
//
//   npm install
//   node bot.js --server 127.0.0.1:50051 --token <token> [--name node-bot]
//                [--connect-seconds 10] [--reconnect-seconds N] [--verbose]
//                [--policy pairs|call|mixed] [--stats]
//
// It loads the wire contract (protos/arena/v1/arena.proto) at run time with
// @grpc/proto-loader, opens one Dealer.Play stream with the token in the
// `authorization` metadata, says hello, and answers every DecisionRequest:
// it raises with a pair among its own cards (or a big enough pocket pair),
// calls one bet otherwise, and folds to more. Amounts are "raise to" totals,
// exactly the min or max of the legal RAISE. `--policy call` only checks or calls
// (a calling station, as bench.dealer's heads-up match uses); `--policy mixed` declares a
// mixed strategy per decision and lets the dealer draw the action (ActionReply.strategy,
// docs/strategy-replies.md). In dealer's choice (docs/house-rules.md §28) it
// answers CHOOSE_GAME: hold'em if the menu has it (`pairs`), the menu's first game (`call`),
// or a strategy over the menu (`mixed`). `--stats` prints, at the
// end, one JSON line with its decisions, the monotonic times of the first and last
// request (seconds) and its CPU seconds between them.
//
// Every rejected reply is answered at once by the check/fold fallback (once
// per decision); a decision the dealer closes (DecisionClosed: it timed out
// and the dealer acted) is dropped and logged. A lost connection (a league
// restart) is retried with exponential backoff until the dealer says every
// match is over (StreamEnding) or the bot is stopped; a dealer that cannot be
// reached at first, or a refused token, ends the bot with one line on stderr
// and exit code 2. Exit 0 with a summary line once every match is over.
'use strict';

const fs = require('fs');
const path = require('path');

const PROTO_ROOT = process.env.ARENA_PROTO_ROOT || path.join(__dirname, '..', '..', 'protos');
const OPTIONS = {
  server: { value: true, help: 'HOST:PORT or unix:/PATH of the dealer (default: $ARENA_SERVER)' },
  token: { value: true, help: "the bot's token (default: $ARENA_TOKEN)" },
  name: { value: true, help: 'display name (default: node-bot)' },
  'connect-seconds': { value: true, help: 'give up when the dealer cannot be reached at first for this long (default: 10)' },
  'reconnect-seconds': { value: true, help: 'after losing the dealer, give up after this long (default: keep trying)' },
  verbose: { value: false, help: 'log connects and rejections' },
  policy: { value: true, help: 'pairs (raise with a pair, default), call (check or call) or mixed (declares a mixed strategy: the dealer draws)' },
  stats: { value: false, help: 'print decisions and CPU seconds as one JSON line at the end' },
  help: { value: false, help: 'show this help' },
};
// Retrying cannot help after these statuses.
const FATAL = new Set(['UNAUTHENTICATED', 'PERMISSION_DENIED', 'FAILED_PRECONDITION',
  'ALREADY_EXISTS', 'UNIMPLEMENTED', 'INVALID_ARGUMENT']);

class UsageError extends Error {}

function fail(message, code = 2) {
  console.error(`arena-node-bot: error: ${message}`);
  process.exit(code);
}

function usage() {
  const lines = ['usage: node bot.js --server HOST:PORT --token TOKEN [options]', ''];
  for (const [key, option] of Object.entries(OPTIONS)) {
    lines.push(`  --${key}${option.value ? ' VALUE' : ''}`.padEnd(28) + option.help);
  }
  return lines.join('\n');
}

function parseArgs(argv) {
  const args = { server: process.env.ARENA_SERVER || '', token: process.env.ARENA_TOKEN || '', name: 'node-bot', 'connect-seconds': '10',
    'reconnect-seconds': '', verbose: false, help: false, policy: 'pairs', stats: false };
  for (let i = 0; i < argv.length; i += 1) {
    const key = argv[i].replace(/^--/, '');
    const option = OPTIONS[key];
    if (!argv[i].startsWith('--') || option === undefined) {
      throw new UsageError(`unknown option ${argv[i]}; known: ${Object.keys(OPTIONS).map((k) => `--${k}`).join(', ')}`);
    }
    if (!option.value) {
      args[key] = true;
      continue;
    }
    if (i + 1 >= argv.length) throw new UsageError(`--${key} needs a value`);
    args[key] = argv[i + 1];
    i += 1;
  }
  if (args.help) return args;
  if (!args.server) throw new UsageError('--server HOST:PORT is required');
  if (!args.token) throw new UsageError('--token is required');
  if (!Object.hasOwn(POLICIES, args.policy)) {
    throw new UsageError(`--policy must be one of ${Object.keys(POLICIES).join(', ')}, got ${JSON.stringify(args.policy)}`);
  }
  for (const key of ['connect-seconds', 'reconnect-seconds']) {
    if (args[key] !== '' && !(Number(args[key]) >= 0)) {
      throw new UsageError(`--${key} must be a number of seconds, got ${JSON.stringify(args[key])}`);
    }
  }
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

function act(kind, raiseTo = 0) {
  return { kind: `ACTION_KIND_${kind}`, raise_to_chips: raiseTo };
}

// The pairs among my own cards (hole and up): any, and one of nines or better.
function pairs(request) {
  const me = request.seats.find((s) => s.seat === request.your_seat) || { up_cards: [] };
  const ranks = request.hole_cards.concat(me.up_cards || []).map(rankOf);
  const paired = ranks.filter((r, i) => ranks.indexOf(r) !== i);
  return { paired: paired.length > 0, highPair: paired.some((r) => r >= 9) };
}

// The whole strategy: a pair among my own cards (or a pocket pair of nines or better in the
// flop games) raises; otherwise check, or call up to one bet; fold to more.
function choose(request) {
  const legal = legalMap(request);
  const { paired, highPair } = pairs(request);
  if (legal.ACTION_KIND_BRING_IN) return act('BRING_IN');
  if (legal.ACTION_KIND_RAISE && (highPair || (paired && request.board_cards.length === 0))) {
    return act('RAISE', legal.ACTION_KIND_RAISE.min_raise_to_chips);
  }
  if (legal.ACTION_KIND_CHECK) return act('CHECK');
  const toCall = Number(request.amount_to_call_chips);
  return act(legal.ACTION_KIND_CALL && (paired || toCall <= Number(request.bet_size_chips)) ? 'CALL' : 'FOLD');
}

// A mixed strategy declared to the dealer, which draws the action (docs/strategy-replies.md):
// with a pair, raise 70% of the time; without, raise 15%, else check or call (fold a fifth of
// the time to a bet of more than one small bet). Returns { strategy } instead of an action.
function mixed(request) {
  const legal = legalMap(request);
  const { paired } = pairs(request);
  const entries = [];
  const pRaise = legal.ACTION_KIND_RAISE ? (paired ? 0.7 : 0.15) : 0;
  if (pRaise > 0) {
    entries.push({ action: { kind: 'ACTION_KIND_RAISE',
      raise_to_chips: legal.ACTION_KIND_RAISE.min_raise_to_chips }, probability: pRaise });
  }
  if (legal.ACTION_KIND_BRING_IN) {
    entries.push({ action: { kind: 'ACTION_KIND_BRING_IN' }, probability: 1 - pRaise });
  } else if (legal.ACTION_KIND_CHECK) {
    entries.push({ action: { kind: 'ACTION_KIND_CHECK' }, probability: 1 - pRaise });
  } else {
    const big = Number(request.amount_to_call_chips) > Number(request.bet_size_chips);
    const pFold = big && !paired ? 0.2 * (1 - pRaise) : 0;
    entries.push({ action: { kind: 'ACTION_KIND_CALL' }, probability: 1 - pRaise - pFold });
    if (pFold > 0) entries.push({ action: { kind: 'ACTION_KIND_FOLD' }, probability: pFold });
  }
  return { strategy: { actions: entries } };
}

// `call`: a calling station (post a due bring-in, check if free, else call).
const POLICIES = { pairs: choose, call: (request) => passive(request, 'CALL'), mixed };

// Dealer's choice (docs/house-rules.md §28): before an orbit the only legal kind is
// CHOOSE_GAME, listing the menu in `choosable_games`. `pairs` deals hold'em if it may (its
// pair reading suits it best), else the menu's first game; `call` always the menu's first;
// `mixed` declares a strategy over the whole menu (the dealer draws).
function chooseGame(request, policy) {
  const menu = legalMap(request).ACTION_KIND_CHOOSE_GAME.choosable_games;
  if (policy === 'mixed') {
    return { strategy: { actions: menu.map((game) => ({
      action: { kind: 'ACTION_KIND_CHOOSE_GAME', game }, probability: 1 / menu.length })) } };
  }
  const game = policy === 'pairs' && menu.includes('GAME_HOLDEM') ? 'GAME_HOLDEM' : menu[0];
  return { kind: 'ACTION_KIND_CHOOSE_GAME', game };
}

// Draw games (docs/house-rules.md §26): keep every card, an exchange of none.
function standPat() {
  return { kind: 'ACTION_KIND_EXCHANGE', raise_to_chips: 0, exchange_cards: [] };
}

// The safe default after a rejection: post a due bring-in, check if free, else fold (or
// `otherwise`); in an exchange round, stand pat; in dealer's choice, the menu's first game.
function passive(request, otherwise = 'FOLD') {
  const legal = legalMap(request);
  if (legal.ACTION_KIND_CHOOSE_GAME) return chooseGame(request, 'call');
  if (legal.ACTION_KIND_EXCHANGE) return standPat();
  if (legal.ACTION_KIND_BRING_IN) return act('BRING_IN');
  return act(legal.ACTION_KIND_CHECK ? 'CHECK' : otherwise);
}

function unbatch(message) {
  return message.payload === 'batch' ? message.batch.messages : [message];
}

function loadContract() {
  let grpc;
  let protoLoader;
  try {
    grpc = require('@grpc/grpc-js');
    protoLoader = require('@grpc/proto-loader');
  } catch (err) {
    throw new UsageError(`the gRPC packages are missing: run "npm install" in ${__dirname}`);
  }
  const file = path.join(PROTO_ROOT, 'arena', 'v1', 'arena.proto');
  if (!fs.existsSync(file)) {
    throw new UsageError(`no wire contract at ${file}: run the bot from the arena repository or set ARENA_PROTO_ROOT to its protos/ directory`);
  }
  const definition = protoLoader.loadSync('arena/v1/arena.proto', {
    includeDirs: [PROTO_ROOT],
    keepCase: true, // field names exactly as in the .proto (snake_case)
    longs: Number, // int64 chips as JS numbers
    enums: String, // enum values as their names
    defaults: true, // unset fields read as 0 / "" / [] like in proto3
    oneofs: true, // `payload` names the oneof field that is set
  });
  return { grpc, arena: grpc.loadPackageDefinition(definition).arena.v1 };
}

function statusName(grpc, code) {
  return Object.keys(grpc.status).find((name) => grpc.status[name] === code) || `status ${code}`;
}

// One connection: resolves with the final status name when the stream ends.
function session(grpc, arena, args, totals) {
  return new Promise((resolve) => {
    const client = new arena.Dealer(args.server, grpc.credentials.createInsecure());
    const metadata = new grpc.Metadata();
    metadata.set('authorization', `Bearer ${args.token}`);
    const call = client.Play(metadata);
    // The decisions this bot holds, by id, and each table's (match and seat) open one: a seat
    // has one decision at a time, so a new request at a table ends the one before.
    const open = new Map();
    const tables = new Map();
    const drop = (decisionId) => {
      const held = open.get(decisionId);
      if (!held) return;
      open.delete(decisionId);
      const table = `${held.request.match_id}/${held.request.your_seat}`;
      if (tables.get(table) === decisionId) tables.delete(table);
    };
    let settled = false;
    const finish = (status, details) => {
      if (settled) return;
      settled = true;
      client.close();
      resolve({ status, details });
    };
    // This bot decides from its requests alone: it asks for requests and results only
    // (no per-action events; the hand's record comes with HandEnded).
    call.write({ hello: { bot_name: args.name, bot_version: '0.1.0', protocol_version: 1, accept_batches: true,
      subscription: 'SUBSCRIPTION_REQUESTS_AND_RESULTS' } });
    call.on('data', (envelope) => {
      for (const message of unbatch(envelope)) {
        if (message.payload === 'welcome') {
          totals.connections += 1;
          if (args.verbose) console.error(`arena-node-bot: connected to ${args.server}`);
        } else if (message.payload === 'decision_request') {
          const request = message.decision_request;
          const table = `${request.match_id}/${request.your_seat}`;
          if (tables.has(table)) drop(tables.get(table));
          tables.set(table, request.decision_id);
          open.set(request.decision_id, { request, fellBack: false });
          const started = process.hrtime.bigint();
          if (args.stats) {
            if (totals.decisions === 0) {
              totals.first = started;
              totals.firstCpu = process.cpuUsage();
            }
            totals.last = started;
            totals.lastCpu = process.cpuUsage();
          }
          // Draw games: every policy stands pat (an exchange of no cards; docs/house-rules.md §26);
          // dealer's choice: each policy chooses a game (§28).
          const legalKinds = legalMap(request);
          const choice = legalKinds.ACTION_KIND_CHOOSE_GAME ? chooseGame(request, args.policy)
            : legalKinds.ACTION_KIND_EXCHANGE ? standPat()
              : POLICIES[args.policy](request);
          const thinkSeconds = Number(process.hrtime.bigint() - started) / 1e9;
          // An action, or a declared strategy ({ strategy }) the dealer draws from.
          const answer = choice.strategy ? { strategy: choice.strategy } : { action: choice };
          call.write({ action_reply: { decision_id: request.decision_id, seat: request.your_seat,
            ...answer, think_seconds: thinkSeconds } });
          totals.decisions += 1;
        } else if (message.payload === 'action_rejected') {
          const rejected = message.action_rejected;
          console.error(`arena-node-bot: reply to ${rejected.decision_id} rejected: ${rejected.message}`);
          totals.rejections += 1;
          const held = open.get(rejected.decision_id);
          if (!rejected.retry_allowed) {
            drop(rejected.decision_id);
          } else if (held && !held.fellBack) {
            held.fellBack = true;
            const { request } = held;
            const safe = passive(request);
            console.error(`arena-node-bot: falling back to ${safe.kind} for ${rejected.decision_id}`);
            totals.fallbacks += 1;
            call.write({ action_reply: { decision_id: request.decision_id, seat: request.your_seat,
              action: safe, fallback: 'FALLBACK_AFTER_REJECTION',
              fallback_detail: `rejected: ${rejected.message}` } });
          }
        } else if (message.payload === 'decision_closed') {
          const closed = message.decision_closed;
          if (closed.reason === 'DECISION_CLOSE_REASON_TIMEOUT') totals.timeouts += 1;
          console.error(`arena-node-bot: decision ${closed.decision_id} (match ${closed.match_id}, hand ${closed.hand_number}, seat ${closed.seat}) closed after ${closed.open_seconds.toFixed(2)} s (${closed.reason}); the dealer acted`);
          drop(closed.decision_id);
        } else if (message.payload === 'stream_ending') {
          totals.endMessage = message.stream_ending.message;
          totals.matchesOver = message.stream_ending.reason === 'STREAM_END_REASON_MATCHES_OVER';
        } else if (message.payload === 'event' && message.event.payload === 'match_ended') {
          totals.matchesEnded += 1;
          for (const [decisionId, held] of open) {
            if (held.request.match_id === message.event.match_id) drop(decisionId);
          }
        }
      }
    });
    call.on('error', (err) => finish(statusName(grpc, err.code), err.details));
    call.on('status', (status) => finish(statusName(grpc, status.code), status.details));
    call.on('end', () => finish('OK', ''));
  });
}

async function main() {
  let args;
  let contract;
  try {
    args = parseArgs(process.argv.slice(2));
    if (args.help) {
      console.log(usage());
      return 0;
    }
    contract = loadContract();
  } catch (err) {
    if (err instanceof UsageError) fail(err.message);
    fail(`${err.message}`);
  }
  const { grpc, arena } = contract;
  const totals = { connections: 0, decisions: 0, matchesEnded: 0, first: 0n, last: 0n,
    firstCpu: null, lastCpu: null, rejections: 0, fallbacks: 0, timeouts: 0, endMessage: '',
    matchesOver: false };
  const connectSeconds = Number(args['connect-seconds']);
  const reconnectSeconds = args['reconnect-seconds'] === '' ? null : Number(args['reconnect-seconds']);
  let lostAt = Date.now();
  let backoff = 0.05;
  for (;;) {
    const before = totals.connections;
    const { status, details } = await session(grpc, arena, args, totals);
    if (status === 'OK' || totals.matchesOver) {
      if (args.stats && totals.decisions > 0) {
        const lastCpu = totals.lastCpu.user + totals.lastCpu.system;
        const firstCpu = totals.firstCpu.user + totals.firstCpu.system;
        console.log(JSON.stringify({ decisions: totals.decisions, first: Number(totals.first) / 1e9,
          last: Number(totals.last) / 1e9, cpu_seconds: (lastCpu - firstCpu) / 1e6 }));
      }
      console.log(`arena-node-bot ${args.name}: ${totals.decisions} decisions (${totals.fallbacks} by the check/fold fallback, ${totals.rejections} rejected, ${totals.timeouts} timed out), ${totals.matchesEnded} match(es) ended; ${totals.endMessage || `stream ${status}`}`);
      return 0;
    }
    // A reconnect refused because the dealer still holds the stream it lost (it has not
    // noticed the drop yet; by default the newer stream is refused): try again.
    const stale = status === 'ALREADY_EXISTS' && totals.connections > 0 && totals.connections === before;
    if (FATAL.has(status) && !stale) {
      const what = status === 'UNAUTHENTICATED' ? 'refused the token' : 'refused the bot';
      fail(`the dealer at ${args.server} ${what} (${status}: ${details})`);
    }
    const now = Date.now();
    if (totals.connections > before) {
      lostAt = now;
      backoff = 0.05;
      console.error(`arena-node-bot: connection to ${args.server} lost (${status}: ${details}); reconnecting until stopped`);
    } else if (totals.connections === 0 && (now - lostAt) / 1000 > connectSeconds) {
      fail(`cannot reach the dealer at ${args.server} after ${connectSeconds} s (${status}: ${details})`);
    } else if (reconnectSeconds !== null && (now - lostAt) / 1000 > reconnectSeconds) {
      fail(`no connection to ${args.server} for ${Math.round((now - lostAt) / 1000)} s; giving up`, 1);
    }
    await new Promise((r) => setTimeout(r, backoff * 1000));
    backoff = Math.min(backoff * 2, 1);
  }
}

main().then((code) => { process.exitCode = code; }, (err) => fail(err.message, 1));
