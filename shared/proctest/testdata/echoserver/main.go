// Command echoserver is the program proctest's own tests run: it writes
// LINES lines, serves 200 on /healthz at ADDR, exits 0 on SIGTERM unless
// IGNORE_TERM is set, and exits 3 at once when FAIL is set.
package main

import (
	"fmt"
	"net/http"
	"os"
	"os/signal"
	"strconv"
	"syscall"
)

func main() {
	n, _ := strconv.Atoi(os.Getenv("LINES"))
	for i := 1; i <= n; i++ {
		fmt.Printf("line %d\n", i)
	}
	if os.Getenv("FAIL") != "" {
		fmt.Fprintln(os.Stderr, "failing as asked")
		os.Exit(3)
	}
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, syscall.SIGTERM)
	go func() {
		for range sig {
			if os.Getenv("IGNORE_TERM") == "" {
				fmt.Println("stopping")
				os.Exit(0)
			}
		}
	}()
	http.HandleFunc("/healthz", func(w http.ResponseWriter, r *http.Request) { fmt.Fprintln(w, "ok") })
	if err := http.ListenAndServe(os.Getenv("ADDR"), nil); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}
