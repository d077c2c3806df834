package daemon

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

func newProcess(t *testing.T) *Process {
	return &Process{
		Name: "sh", Log: filepath.Join(t.TempDir(), "sh.log"),
		Ready: 10 * time.Second, Poll: 10 * time.Millisecond, Awaited: "write its file",
		Signal: syscall.SIGTERM, Grace: 10 * time.Second,
	}
}

// fileProbe succeeds once path exists: the shell scripts below create it
// when they are "ready".
func fileProbe(path string) func(context.Context) error {
	return func(context.Context) error {
		_, err := os.Stat(path)
		return err
	}
}

func TestStartWaitsForProbeAndStopSignals(t *testing.T) {
	p := newProcess(t)
	ready := filepath.Join(t.TempDir(), "ready")
	// Ready only after a pause, so Start must poll; exits 0 on SIGTERM.
	script := `trap 'echo bye; exit 0' TERM; echo hello; sleep 0.2; touch "$1"; while :; do sleep 0.05; done`
	if err := p.Start(context.Background(), exec.Command("sh", "-c", script, "sh", ready), fileProbe(ready)); err != nil {
		t.Fatal(err)
	}
	if err := p.Start(context.Background(), exec.Command("true"), fileProbe(ready)); err == nil || !strings.Contains(err.Error(), "still running") {
		t.Fatalf("second Start while running: %v, want a still-running error", err)
	}
	p.Stop()
	if out := p.Output(); !strings.Contains(out, "hello") || !strings.Contains(out, "bye") {
		t.Fatalf("output %q lacks the start and the signal handler's lines", out)
	}

	// Started again after Stop, the output of both runs is kept.
	again := filepath.Join(t.TempDir(), "again")
	if err := p.Start(context.Background(), exec.Command("sh", "-c", `echo again; touch "$1"; exec sleep 30`, "sh", again), fileProbe(again)); err != nil {
		t.Fatal(err)
	}
	p.Stop()
	if out := p.Output(); !strings.Contains(out, "hello") || !strings.Contains(out, "again") {
		t.Fatalf("output %q lacks a run", out)
	}
}

func TestStartReportsEarlyExit(t *testing.T) {
	p := newProcess(t)
	never := filepath.Join(t.TempDir(), "never")
	err := p.Start(context.Background(), exec.Command("sh", "-c", "echo bad config; exit 3"), fileProbe(never))
	if err == nil || !strings.Contains(err.Error(), "exited at start") || !strings.Contains(err.Error(), "bad config") {
		t.Fatalf("err = %v, want an exit error carrying the output", err)
	}
}

func TestStartKillsServerThatNeverPassesProbe(t *testing.T) {
	p := newProcess(t)
	p.Ready = 200 * time.Millisecond
	probeErr := errors.New("not yet")
	begin := time.Now()
	err := p.Start(context.Background(), exec.Command("sleep", "60"), func(context.Context) error { return probeErr })
	if err == nil || !strings.Contains(err.Error(), "did not write its file within 200ms: not yet") {
		t.Fatalf("err = %v, want a deadline error with the probe's last error", err)
	}
	// Killed, not left to run out its minute.
	if d := time.Since(begin); d > 30*time.Second {
		t.Fatalf("Start returned after %v", d)
	}
	if err := p.Start(context.Background(), exec.Command("sh", "-c", "exit 0"), func(context.Context) error { return probeErr }); err == nil || !strings.Contains(err.Error(), "exited at start") {
		t.Fatalf("Start after the kill: %v, want the new run's exit error", err)
	}
}

func TestStopKillsAfterGrace(t *testing.T) {
	p := newProcess(t)
	p.Grace = 100 * time.Millisecond
	ready := filepath.Join(t.TempDir(), "ready")
	// Ignores SIGTERM, so only the kill after Grace ends it.
	script := `trap '' TERM; touch "$1"; while :; do sleep 0.05; done`
	if err := p.Start(context.Background(), exec.Command("sh", "-c", script, "sh", ready), fileProbe(ready)); err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() { p.Stop(); close(done) }()
	select {
	case <-done:
	case <-time.After(30 * time.Second):
		t.Fatal("Stop did not kill a server that ignores its signal")
	}
	if st := p.cmd.ProcessState; st == nil || st.Sys().(syscall.WaitStatus).Signal() != syscall.SIGKILL {
		t.Fatalf("process state %v, want killed by SIGKILL", st)
	}
}

func TestOnFreePortTriesAgain(t *testing.T) {
	var ports []int
	err := OnFreePort(func(port int) error {
		ports = append(ports, port)
		if len(ports) < 3 {
			return errors.New("port taken")
		}
		return nil
	})
	if err != nil || len(ports) != 3 {
		t.Fatalf("err %v after %d tries, want success on the third", err, len(ports))
	}
	for _, port := range ports {
		if port <= 0 || port > 65535 {
			t.Fatalf("port %d", port)
		}
	}
	err = OnFreePort(func(int) error { return errors.New("always taken") })
	if err == nil || err.Error() != "always taken" {
		t.Fatalf("err = %v, want the last start error", err)
	}
}
