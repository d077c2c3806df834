package chatmodel

import (
	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

func TestWatchSent(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {}))
	defer srv.Close()
	ctx, sent := WatchSent(context.Background())
	if sent() {
		t.Fatal("sent before any request")
	}
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, srv.URL, strings.NewReader("{}"))
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if !sent() {
		t.Error("a request that reached the server is not reported sent")
	}

	// A port nobody listens on: the connection is refused, nothing is sent.
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	ctx, sent = WatchSent(context.Background())
	req, _ = http.NewRequestWithContext(ctx, http.MethodPost, "http://"+addr, strings.NewReader("{}"))
	if res, err := http.DefaultClient.Do(req); err == nil {
		res.Body.Close()
		t.Fatal("a closed port answered")
	}
	if sent() {
		t.Error("a refused connection is reported sent")
	}
}
