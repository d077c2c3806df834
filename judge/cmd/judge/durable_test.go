package main_test

// Black-box tests of what survives a restart: spending and usage kept under
// JUDGE_DATA_DIR by a judge without Redis, the lock that keeps a second
// judge off that directory, and the warning of a judge whose budgets live
// in a Redis that would forget them.

import (
	"context"
	"net/http"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/judgeworks/shared/proctest"
	"github.com/judgeworks/shared/redistest"
)

// spendToTheCap sends paidAsk with key until the judge refuses it for its
// budget, and returns the USD the answers cost and how many were answered.
func spendToTheCap(t *testing.T, j *judge, key string) (total float64, answered int64) {
	t.Helper()
	for range 100 {
		r := j.ask(t, key, paidAsk)
		if r.status == http.StatusPaymentRequired {
			return total, answered
		}
		total += decodeResponse(t, r).Usage.Cost
		answered++
	}
	t.Fatalf("100 requests costing %v USD never reached the key's budget", total)
	return 0, 0
}

// A judge without Redis, stopped and started again on the same
// JUDGE_DATA_DIR, still refuses a key that spent its budget before any
// upstream call, and GET /v1/usage shows the same figures. Killed outright
// (no shutdown code runs) it still refuses the key: a reservation against
// a budget is on disk before the request goes upstream.
func TestSpendSurvivesARestart(t *testing.T) {
	u := newChatUpstream(t, 0, 0)
	key, line := newKey(t, "team-a")
	keys := newKeysFile(t)
	keys.write(t, with(line, "budget_usd_per_day: 0.2"))
	dir := filepath.Join(t.TempDir(), "judge-data")
	j := start(t, paidEnv(u, keys, "JUDGE_DATA_DIR="+dir)...)

	total, answered := spendToTheCap(t, j, key)
	if answered < 2 || total > 0.2 {
		t.Fatalf("spent %v USD in %d answers on a budget of 0.2 USD", total, answered)
	}
	before := j.usage(t, key)
	calls := u.calls.Load()
	restart := func(stop func()) {
		t.Helper()
		stop()
		if err := j.proc.Restart(); err != nil {
			t.Fatal(err)
		}
		if err := proctest.WaitOK(context.Background(), j.url+"/healthz", j.proc); err != nil {
			t.Fatal(err)
		}
		wantError(t, j.ask(t, key, paidAsk), http.StatusPaymentRequired, "budget_exceeded")
		if n := u.calls.Load(); n != calls {
			t.Errorf("after the restart a key over its budget made %d upstream calls", n-calls)
		}
	}

	restart(func() {
		if err := j.proc.Stop(syscall.SIGTERM, time.Minute); err != nil {
			t.Fatalf("stopping the judge: %v", err)
		}
	})
	after := j.usage(t, key)
	if after.Today.Requests != answered || diff(after.Today.CostUSD, total) > 1e-9 || after.Month.Requests != answered ||
		after.Today.Models["llm-1.0"] != before.Today.Models["llm-1.0"] {
		t.Errorf("usage after the restart %+v, want the %d answers costing %v USD from before it (%+v)", after.Today, answered, total, before.Today)
	}
	if after.Today.RemainingUSD == nil || before.Today.RemainingUSD == nil || *after.Today.RemainingUSD != *before.Today.RemainingUSD {
		t.Errorf("remaining_usd %v after the restart, %v before", after.Today.RemainingUSD, before.Today.RemainingUSD)
	}

	restart(j.proc.Kill)
}

// A second judge given a JUDGE_DATA_DIR in use stops at start-up, naming
// the setting and saying the file is locked: two processes counting apart
// would each let a key spend its whole budget.
func TestSecondJudgeOnADataDirIsRefused(t *testing.T) {
	dir := t.TempDir()
	start(t, append(keysEnv("k"), "JUDGE_DATA_DIR="+dir)...)
	port, err := proctest.FreePort()
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, proctest.Build(t, "."))
	cmd.Env = append(proctest.BaseEnv(t.TempDir()), "JUDGE_API_KEYS=k", "JUDGE_DATA_DIR="+dir,
		"JUDGE_ADDR=127.0.0.1:"+strconv.Itoa(port))
	out, err := cmd.CombinedOutput()
	if err == nil || ctx.Err() != nil {
		t.Fatalf("a second judge on the same data directory: %v\n%s", err, out)
	}
	if !strings.Contains(string(out), "JUDGE_DATA_DIR") || !strings.Contains(string(out), "locked") {
		t.Errorf("the refusal does not name JUDGE_DATA_DIR and the lock:\n%s", out)
	}
}

// A judge whose keys have budgets and whose Redis does not persist says so
// at start-up; one without budgets has nothing to lose and says nothing.
func TestWarnsOfARedisThatForgetsBudgets(t *testing.T) {
	rs := redistest.New(t) // --save "" --appendonly no
	_, line := newKey(t, "team-a")
	keys := newKeysFile(t)
	keys.write(t, with(line, "budget_usd_per_month: 5"))
	const warning = "Redis does not persist"

	j := start(t, "JUDGE_KEYS_FILE="+keys.path, "REDIS_URL="+rs.URL())
	proctest.WaitFor(t, 15*time.Second, "the start-up warning", func() bool {
		return strings.Contains(j.proc.Output(), warning)
	})
	if !strings.Contains(j.proc.Output(), `"level":"WARN"`) {
		t.Errorf("the warning is not logged at WARN:\n%s", j.proc.Output())
	}

	plain := start(t, append(keysEnv("k"), "REDIS_URL="+rs.URL())...)
	// Logged after any warning, in order.
	proctest.WaitFor(t, 15*time.Second, "the start-up line", func() bool {
		return strings.Contains(plain.proc.Output(), "judge starting")
	})
	if strings.Contains(plain.proc.Output(), warning) {
		t.Errorf("a judge without budgets warns:\n%s", plain.proc.Output())
	}
}
