// The published System One JavaScript SDK (@typesafe-ai/sdk) against the
// judge built from this checkout, driven with the SDK's defaults: no default
// model (it sends jev-latest), its own retry policy, only the base URL and
// the key changed. What existing callers of POST /v1/systemone rely on. Run
// with `make test-sdk`, or `npm ci && node --test` here (JUDGE_BIN may name
// a judge binary already built; otherwise the test builds one with
// `go build`).

import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { execFileSync, spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { createServer as createHTTPServer } from "node:http";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

import {
  AuthenticationError,
  BadRequestError,
  PermissionDeniedError,
  TypeSafeClient,
  UnprocessableEntityError,
  choice,
  noul,
  score,
} from "@typesafe-ai/sdk";

const here = dirname(fileURLToPath(import.meta.url));
// Keys of at least 32 characters: a judge with a language model refuses shorter ones.
const KEY = "sdk-test-key-0123456789abcdef0123";
const REQUEST_ID = /^req_[0-9a-f]{32}$/;

let dir;
let bin;
const judges = [];
const servers = [];

const freePort = () =>
  new Promise((ok, fail) => {
    const srv = createServer();
    srv.on("error", fail);
    srv.listen(0, "127.0.0.1", () => {
      const { port } = srv.address();
      srv.close(() => ok(port));
    });
  });

const sleep = (ms) => new Promise((ok) => setTimeout(ok, ms));

// startJudge runs the judge with env on a free port and waits for /healthz.
async function startJudge(env) {
  const port = await freePort();
  const baseURL = `http://127.0.0.1:${port}`;
  const proc = spawn(bin, [], {
    // Each judge keeps its spending in a directory of its own: two on one
    // JUDGE_DATA_DIR would be refused (the file is locked).
    env: { PATH: process.env.PATH, HOME: dir, JUDGE_ADDR: `127.0.0.1:${port}`, JUDGE_DATA_DIR: join(dir, `data-${port}`), ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  const j = { proc, baseURL, output: "" };
  proc.stdout.on("data", (b) => (j.output += b));
  proc.stderr.on("data", (b) => (j.output += b));
  judges.push(j);
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (proc.exitCode !== null) throw new Error(`the judge exited at start:\n${j.output}`);
    try {
      if ((await fetch(`${baseURL}/healthz`)).ok) return j;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) throw new Error(`the judge did not answer /healthz within 60 s:\n${j.output}`);
    await sleep(50);
  }
}

// requestsWithStatus reads from the judge's metrics how many System One
// requests it answered with status.
async function requestsWithStatus(j, status) {
  const text = await (await fetch(`${j.baseURL}/metrics`)).text();
  const m = text.match(new RegExp(`judge_http_requests_total\\{route="/v1/systemone",status="${status}"\\} (\\d+)`));
  return m ? Number(m[1]) : 0;
}

let offline;

before(async () => {
  dir = mkdtempSync(join(tmpdir(), "judge-sdktest-"));
  bin = process.env.JUDGE_BIN;
  if (!bin) {
    bin = join(dir, "judge");
    execFileSync("go", ["build", "-o", bin, "./cmd/judge"], { cwd: resolve(here, ".."), stdio: "inherit" });
  }
  offline = await startJudge({
    // A second key that may use only a model this judge does not serve.
    JUDGE_API_KEYS: `${KEY},limited-key:llm-latest`,
    JUDGE_RATE_LIMIT_RPM: "100000",
  });
});

after(async () => {
  for (const j of judges) {
    if (j.proc.exitCode === null) {
      const exited = new Promise((ok) => j.proc.once("exit", ok));
      j.proc.kill("SIGTERM");
      await Promise.race([exited, sleep(15_000)]);
      if (j.proc.exitCode === null) j.proc.kill("SIGKILL");
    }
  }
  for (const s of servers) s.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

// client has the SDK's defaults but for the key and the base URL.
const client = (apiKey = KEY, baseURL = offline.baseURL) => new TypeSafeClient({ apiKey, baseURL });

const ticket = {
  state: "I was charged twice for my subscription and I am furious. Please refund me!",
  questions: {
    refund: noul("Is the customer asking for a refund?"),
    team: choice("Which team should handle it?", {
      billing: "Payments, invoices, refunds and charges",
      technical: "Bugs, errors, crashes and login problems",
    }),
    anger: score("How angry is the customer?", ["calm", "annoyed", "furious"]),
  },
};

const sum = (probs) => Object.values(probs).reduce((a, b) => a + b, 0);

test("the SDK's README quickstart, as written, with the key and base URL in its environment", async () => {
  process.env.TYPESAFE_API_KEY = KEY;
  process.env.TYPESAFE_BASE_URL = `${offline.baseURL}/`;
  try {
    // From the README of @typesafe-ai/sdk 0.6.0, unchanged.
    const client = new TypeSafeClient();
    const response = await client.systemOne({
      state: { document: "I was charged twice. Please fix this ASAP." },
      questions: {
        category: choice("What is this ticket about?", {
          billing: null,
          technical: null,
          other: null,
        }),
      },
    });

    console.log(response.answers.category.choice);
    assert.equal(client.defaultModel, "jev-latest");
    // jev-latest is the judge's default model, which names itself.
    assert.equal(response.model, "local/semantic-1.0");
    assert.equal(response.answers.category.choice, "billing");
    assert.deepEqual(Object.keys(response.answers.category.probabilities).sort(), ["billing", "other", "technical"]);
  } finally {
    delete process.env.TYPESAFE_API_KEY;
    delete process.env.TYPESAFE_BASE_URL;
  }
});

test("noul, choice and score answers in question order, with the request id", async () => {
  const { data, response, requestId } = await client().systemOne(ticket).withResponse();
  assert.equal(data.model, "local/semantic-1.0");
  assert.deepEqual(Object.keys(data.answers), ["refund", "team", "anger"]);
  const { refund, team, anger } = data.answers;
  assert.equal(refund.type, "noul");
  assert.ok(refund.noul > 0.5 && refund.noul <= 1, `refund p(yes) ${refund.noul}`);
  assert.equal(team.type, "choice");
  assert.equal(team.choice, "billing");
  assert.ok(Math.abs(sum(team.probabilities) - 1) < 1e-9);
  assert.ok(team.confidence >= 0 && team.confidence <= 1);
  assert.equal(anger.type, "score");
  assert.deepEqual(anger.legend, { 0: "calm", 1: "annoyed", 2: "furious" });
  assert.ok(Math.abs(sum(anger.probabilities) - 1) < 1e-9);
  const expected = Object.entries(anger.probabilities).reduce((a, [i, p]) => a + Number(i) * p, 0);
  assert.ok(Math.abs(anger.score - expected) < 1e-9, `score ${anger.score}, Σ i·pᵢ ${expected}`);
  assert.ok(data.usage.input_tokens > 0);
  assert.match(requestId ?? "", REQUEST_ID);
  assert.equal(requestId, response.headers.get("x-request-id"));
});

test("the shapes the SDK's helpers send: no instructions, JSON instructions, JSON levels and meanings", async () => {
  const levels = ["calm", { level: "annoyed" }, ["angry", "furious"]];
  const { answers } = await client().systemOne({
    state: ["charged twice", { mood: "furious" }],
    questions: {
      bare: noul(),
      meant: noul({ task: "Is a refund asked for?" }, { true: { means: "refund" }, false: null }),
      labels: choice(null, { billing: ["charges", "refunds"], technical: { covers: "bugs" }, other: null }),
      heat: score(null, levels),
    },
  });
  assert.deepEqual(Object.keys(answers), ["bare", "meant", "labels", "heat"]);
  assert.ok(answers.bare.noul >= 0 && answers.bare.noul <= 1);
  assert.ok(answers.meant.noul >= 0 && answers.meant.noul <= 1);
  assert.ok(["billing", "technical", "other"].includes(answers.labels.choice));
  // The legend echoes the levels as they were sent.
  assert.deepEqual(answers.heat.legend, { 0: "calm", 1: { level: "annoyed" }, 2: ["angry", "furious"] });
});

test("a null level is refused before any charge, as the hosted service refuses it", async () => {
  const nullLevel = { state: "x", questions: { heat: score("How upset?", [null, "angry"]) } };
  await assert.rejects(client().systemOne(nullLevel), (err) => {
    assert.ok(err instanceof UnprocessableEntityError, `${err.constructor.name}: ${err.message}`);
    assert.deepEqual(err.body.detail[0].loc, ["body", "questions", "heat", "score", "criteria", "0"]);
    return true;
  });
});

test("models lists every accepted name, jev-latest among them", async () => {
  const models = await client().models.list();
  const names = models.map((m) => m.name);
  for (const n of ["local/semantic-1.0", "local/semantic-latest", "local/lexical-1.0", "local/lexical-latest", "jev-latest"]) {
    assert.ok(names.includes(n), `${n} missing from ${names}`);
  }
  for (const m of models) {
    assert.match(m.release_date, /^\d{4}-\d{2}-\d{2}$/);
    assert.ok(m.description.length > 0);
  }
  assert.equal(models.find((m) => m.name === "jev-latest").alias_of, "local/semantic-1.0");
});

test("error statuses surface as the SDK's error types, with the request id", async () => {
  await assert.rejects(client("limited-key").systemOne(ticket), (err) => {
    assert.ok(err instanceof PermissionDeniedError, `${err.constructor.name}: ${err.message}`);
    assert.equal(err.status, 403);
    assert.match(err.message, /jev-latest/);
    assert.match(err.requestId ?? "", REQUEST_ID);
    return true;
  });
  await assert.rejects(client("not-a-key").systemOne(ticket), (err) => {
    assert.ok(err instanceof AuthenticationError, `${err.constructor.name}: ${err.message}`);
    assert.equal(err.status, 401);
    return true;
  });
  await assert.rejects(client().systemOne({ ...ticket, model: "jev-9" }), (err) => {
    assert.ok(err instanceof BadRequestError, `${err.constructor.name}: ${err.message}`);
    assert.equal(err.body.detail.error_type, "api_usage_error");
    return true;
  });
  const oneOption = { state: "x", questions: { t: choice("Which?", { only: null }) } };
  await assert.rejects(client().systemOne(oneOption), (err) => {
    assert.ok(err instanceof UnprocessableEntityError, `${err.constructor.name}: ${err.message}`);
    assert.equal(err.status, 422);
    // The SDK reads the list form of validation errors into its message.
    assert.match(err.message, /questions\.t\.choice\.criteria: a choice question needs at least 2 options/);
    assert.deepEqual(err.body.detail[0].input, { only: null });
    return true;
  });
});

test("an Idempotency-Key sent through the SDK's headers is replayed", async () => {
  const opts = { headers: { "Idempotency-Key": "sdk-replay-1" } };
  const first = await client().systemOne(ticket, opts).withResponse();
  const again = await client().systemOne(ticket, opts).withResponse();
  assert.equal(first.response.headers.get("idempotent-replayed"), null);
  assert.equal(again.response.headers.get("idempotent-replayed"), "true");
  assert.deepEqual(again.data, first.data);
  assert.notEqual(again.requestId, first.requestId);
});

test("the SDK's retry waits out a 429 for retry-after-ms and then succeeds", async () => {
  // One request a second, one at a time: the second request at once is refused.
  const limited = await startJudge({ JUDGE_API_KEYS: KEY, JUDGE_RATE_LIMIT_RPM: "60", JUDGE_RATE_LIMIT_BURST: "1" });
  const c = client(KEY, limited.baseURL);
  await c.systemOne({ state: "x", questions: { q: noul("Is it?") } });
  const started = Date.now();
  const { answers } = await c.systemOne({ state: "x", questions: { q: noul("Is it?") } });
  assert.equal(answers.q.type, "noul");
  assert.ok(Date.now() - started >= 500, `answered after ${Date.now() - started} ms, sooner than the wait asked for`);
  assert.ok((await requestsWithStatus(limited, 429)) >= 1, "the judge refused nothing with 429");
});

test("the SDK's retry gets past a 529 from an overloaded upstream", async () => {
  // A System One upstream that is overloaded once, then answers.
  let calls = 0;
  const upstream = createHTTPServer((req, res) => {
    let body = "";
    req.on("data", (b) => (body += b));
    req.on("end", () => {
      calls++;
      res.setHeader("Content-Type", "application/json");
      if (calls === 1) {
        res.writeHead(529, { "retry-after-ms": "200" });
        res.end(JSON.stringify({ detail: { error_type: "overloaded", message: "busy" } }));
        return;
      }
      const answers = {};
      for (const name of Object.keys(JSON.parse(body).questions)) answers[name] = { type: "noul", noul: 0.7 };
      res.end(JSON.stringify({ model: "peer-1", answers, usage: { input_tokens: 5, output_tokens: 1 } }));
    });
  });
  servers.push(upstream);
  await new Promise((ok) => upstream.listen(0, "127.0.0.1", ok));
  const front = await startJudge({
    JUDGE_API_KEYS: KEY,
    LLM_API: "systemone",
    LLM_BASE_URL: `http://127.0.0.1:${upstream.address().port}`,
    LLM_API_KEY: "peer-key",
    LLM_MODEL: "peer-latest",
  });
  const { model, answers } = await client(KEY, front.baseURL).systemOne({ state: "x", questions: { q: noul("Is it?") } });
  // jev-latest is the configured language model here.
  assert.equal(model, "llm-1.0/peer-1");
  assert.equal(answers.q.noul, 0.7);
  assert.equal(calls, 2);
  assert.equal(await requestsWithStatus(front, 529), 1);
});
