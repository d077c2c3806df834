// The published System One JavaScript SDK (@typesafe-ai/sdk) against the
// judge built from this checkout, on the offline engine: what existing
// callers of POST /v1/systemone rely on. Run with `make test-sdk`, or
// `npm ci && node --test` here (JUDGE_BIN may name a judge binary already
// built; otherwise the test builds one with `go build`).

import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { execFileSync, spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

import {
  AuthenticationError,
  PermissionDeniedError,
  TypeSafeClient,
  UnprocessableEntityError,
  choice,
  noul,
  score,
} from "@typesafe-ai/sdk";

const here = dirname(fileURLToPath(import.meta.url));
const KEY = "sdk-test-key";
const MODEL = "local/lexical-latest";

let dir;
let judge;
let output = "";
let baseURL;

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

before(async () => {
  dir = mkdtempSync(join(tmpdir(), "judge-sdktest-"));
  let bin = process.env.JUDGE_BIN;
  if (!bin) {
    bin = join(dir, "judge");
    execFileSync("go", ["build", "-o", bin, "./cmd/judge"], { cwd: resolve(here, ".."), stdio: "inherit" });
  }
  const port = await freePort();
  baseURL = `http://127.0.0.1:${port}`;
  judge = spawn(bin, [], {
    env: {
      PATH: process.env.PATH,
      HOME: dir,
      JUDGE_ADDR: `127.0.0.1:${port}`,
      // A second key that may use only a model this judge does not serve.
      JUDGE_API_KEYS: `${KEY},limited-key:llm-latest`,
      JUDGE_RATE_LIMIT_RPM: "100000",
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  judge.stdout.on("data", (b) => (output += b));
  judge.stderr.on("data", (b) => (output += b));
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (judge.exitCode !== null) throw new Error(`the judge exited at start:\n${output}`);
    try {
      if ((await fetch(`${baseURL}/healthz`)).ok) break;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) throw new Error(`the judge did not answer /healthz within 60 s:\n${output}`);
    await sleep(50);
  }
});

after(async () => {
  if (judge && judge.exitCode === null) {
    const exited = new Promise((ok) => judge.once("exit", ok));
    judge.kill("SIGTERM");
    await Promise.race([exited, sleep(15_000)]);
    if (judge.exitCode === null) judge.kill("SIGKILL");
  }
  if (dir) rmSync(dir, { recursive: true, force: true });
});

const client = (apiKey = KEY) =>
  new TypeSafeClient({ apiKey, baseURL, defaultModel: MODEL, logLevel: "off", retry: { maxRetries: 0 } });

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

test("noul, choice and score answers, with the request id", async () => {
  const { data, response, requestId } = await client().systemOne(ticket).withResponse();
  assert.equal(data.model, "local/lexical-1.0");
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
  assert.match(requestId ?? "", /^[0-9a-f]{32}$/);
  assert.equal(requestId, response.headers.get("x-request-id"));
});

test("the key and base URL from the SDK's environment variables", async () => {
  process.env.TYPESAFE_API_KEY = KEY;
  process.env.TYPESAFE_BASE_URL = `${baseURL}/`;
  try {
    const c = new TypeSafeClient({ defaultModel: MODEL, logLevel: "off" });
    const { answers } = await c.systemOne({ state: "refund please", questions: { q: noul("Is a refund requested?") } });
    assert.equal(answers.q.type, "noul");
  } finally {
    delete process.env.TYPESAFE_API_KEY;
    delete process.env.TYPESAFE_BASE_URL;
  }
});

test("models lists what the key may use", async () => {
  const models = await client().models.list();
  assert.ok(models.some((m) => m.name === "local/lexical-1.0"));
});

test("error statuses surface as the SDK's error types, with the request id", async () => {
  await assert.rejects(client("limited-key").systemOne(ticket), (err) => {
    assert.ok(err instanceof PermissionDeniedError, `${err.constructor.name}: ${err.message}`);
    assert.equal(err.status, 403);
    assert.match(err.message, /local\/lexical-latest/);
    assert.match(err.requestId ?? "", /^[0-9a-f]{32}$/);
    return true;
  });
  await assert.rejects(client("not-a-key").systemOne(ticket), (err) => {
    assert.ok(err instanceof AuthenticationError, `${err.constructor.name}: ${err.message}`);
    assert.equal(err.status, 401);
    return true;
  });
  const oneOption = { state: "x", questions: { t: choice("Which?", { only: null }) } };
  await assert.rejects(client().systemOne(oneOption), (err) => {
    assert.ok(err instanceof UnprocessableEntityError, `${err.constructor.name}: ${err.message}`);
    assert.equal(err.status, 422);
    // The SDK reads the list form of validation errors into its message.
    assert.match(err.message, /questions\.t\.criteria: a choice question needs at least 2 options/);
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
