package chatmodel

import (
	"context"
	"net/http/httptrace"
	"sync/atomic"
)

// WatchSent returns ctx with a trace that notes when an HTTP request made
// with it has been written whole to a connection, and sent, which reports
// whether one was. A call that was sent may be billed by the provider
// whatever happens after (the caller hangs up, the reply never comes or
// is malformed); one that was not, such as a refused connection, is not.
func WatchSent(ctx context.Context) (_ context.Context, sent func() bool) {
	var wrote atomic.Bool
	trace := &httptrace.ClientTrace{WroteRequest: func(info httptrace.WroteRequestInfo) {
		if info.Err == nil {
			wrote.Store(true)
		}
	}}
	return httptrace.WithClientTrace(ctx, trace), wrote.Load
}
