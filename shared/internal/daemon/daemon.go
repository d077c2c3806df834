// Package daemon runs the throwaway servers of the test harnesses (pgtest,
// redistest): one process at a time, started and waited on until a probe
// succeeds, stopped with a signal and a grace period, and started again on
// the same port, its output appended to one file across runs.
package daemon

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"sync"
	"syscall"
	"time"

	"github.com/judgeworks/shared/proctest"
)

// Process is a server that may be stopped and started again. Fill in the
// exported fields before the first Start and leave them alone after.
type Process struct {
	// Name labels the server in errors ("postgres").
	Name string
	// Log is the file each run's output is appended to, so Output tells
	// the whole story across restarts.
	Log string
	// Ready is how long Start waits for the probe to succeed; Poll is the
	// pause between tries; Awaited says in an error what the probe waits
	// for ("accept connections").
	Ready   time.Duration
	Poll    time.Duration
	Awaited string
	// Signal asks for a shutdown; Grace is how long Stop waits for the exit
	// before it kills the server.
	Signal syscall.Signal
	Grace  time.Duration

	mu     sync.Mutex
	cmd    *exec.Cmd
	exited chan struct{}
}

// Start starts cmd, unless the previous run is still going, and waits until
// probe succeeds. A server that exits first, or does not pass the probe
// within Ready (it is killed then), is an error.
func (p *Process) Start(ctx context.Context, cmd *exec.Cmd, probe func(context.Context) error) error {
	p.mu.Lock()
	if p.cmd != nil {
		select {
		case <-p.exited:
		default:
			p.mu.Unlock()
			return errors.New(p.Name + " is still running")
		}
	}
	logFile, err := os.OpenFile(p.Log, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		p.mu.Unlock()
		return err
	}
	defer logFile.Close()
	cmd.Stdout, cmd.Stderr = logFile, logFile
	if err := cmd.Start(); err != nil {
		p.mu.Unlock()
		return fmt.Errorf("start %s: %w", p.Name, err)
	}
	exited := make(chan struct{})
	go func() { _ = cmd.Wait(); close(exited) }()
	p.cmd, p.exited = cmd, exited
	p.mu.Unlock()

	ctx, cancel := context.WithTimeout(ctx, p.Ready)
	defer cancel()
	for {
		select {
		case <-exited:
			return fmt.Errorf("%s exited at start:\n%s", p.Name, p.Output())
		default:
		}
		err := probe(ctx)
		if err == nil {
			return nil
		}
		select {
		case <-ctx.Done():
			_ = cmd.Process.Kill()
			<-exited
			return fmt.Errorf("%s did not %s within %v: %v", p.Name, p.Awaited, p.Ready, err)
		case <-time.After(p.Poll):
		}
	}
}

// Stop sends Signal to the running server and waits up to Grace for it to
// exit before killing it. A server never started is left alone.
func (p *Process) Stop() {
	p.mu.Lock()
	cmd, exited := p.cmd, p.exited
	p.mu.Unlock()
	if cmd == nil {
		return
	}
	_ = cmd.Process.Signal(p.Signal)
	select {
	case <-exited:
	case <-time.After(p.Grace):
		_ = cmd.Process.Kill()
		<-exited
	}
}

// Output is everything the server wrote, every run, until its Log is
// removed.
func (p *Process) Output() string {
	b, _ := os.ReadFile(p.Log)
	return string(b)
}

// OnFreePort calls start with a loopback port that was free a moment ago.
// Another process may bind that port before the server does, so a failed
// start is tried again on a new port, three times in all; the last error is
// returned.
func OnFreePort(start func(port int) error) error {
	var err error
	for range 3 {
		var port int
		if port, err = proctest.FreePort(); err != nil {
			return err
		}
		if err = start(port); err == nil {
			return nil
		}
	}
	return err
}
