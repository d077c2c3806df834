package httpapi

import (
	"context"
	"net/http"
	"strconv"
	"testing"

	"github.com/judgeworks/interview"
	"github.com/judgeworks/interview/internal/postgres"
	"github.com/judgeworks/interview/internal/postgres/dbtest"
	"github.com/judgeworks/interview/internal/voice/voicetest"
)

func TestAllowanceOverLimitIs429(t *testing.T) {
	pool, _ := dbtest.New(t, 20)
	ctx := context.Background()
	user, err := postgres.NewStore(pool).CreateUser(ctx, "Alice", "alice@example.com", "x")
	if err != nil {
		t.Fatal(err)
	}
	alice := user.ID
	allowance := postgres.NewVoiceAllowance(pool)
	streamed := voicetest.Espeak(t, "Next question.")
	f := voicetest.NewProvider(t, func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "audio/wav")
		_, _ = w.Write(streamed)
	})
	cfg := remoteConfig(f)
	cfg.DailySpeechChars = 30
	env := newEnvWith(t, cfg, allowance, alice)

	if rec := env.speak("Tell me about yourself."); rec.Code != 200 { // 23 characters
		t.Fatalf("first: status %d body %s", rec.Code, rec.Body)
	}
	rec := env.speak("What is a deadlock?") // 19 more: over 30
	if rec.Code != 429 || errorCode(t, rec) != "rate_limited" {
		t.Fatalf("second: status %d body %s", rec.Code, rec.Body)
	}
	ra, err := strconv.Atoi(rec.Header().Get("Retry-After"))
	if err != nil || ra < 1 || ra > 86400 {
		t.Fatalf("Retry-After %q: want seconds until midnight UTC", rec.Header().Get("Retry-After"))
	}
	if len(f.Received()) != 1 {
		t.Fatalf("provider called %d times; the refused request must not reach it", len(f.Received()))
	}
	if rec := env.speak("Why?"); rec.Code != 200 { // 23 + 4 fits
		t.Fatalf("small request within what is left: status %d body %s", rec.Code, rec.Body)
	}
	// 27 characters used: 3 are left of the day's 30.
	if ok, _, err := allowance.Spend(ctx, alice, interview.SpeechChars, 3, 30); err != nil || !ok {
		t.Fatalf("the 3 characters left were refused: %v %v", ok, err)
	}
	if ok, _, err := allowance.Spend(ctx, alice, interview.SpeechChars, 1, 30); err != nil || ok {
		t.Fatalf("more than 30 characters passed: %v %v", ok, err)
	}
}
