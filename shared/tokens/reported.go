package tokens

// MaxOutput is the most output tokens one upstream call's reply is believed
// to report; no model writes more in one reply.
const MaxOutput = 1 << 20

// Reported is the input tokens an upstream call is charged, given the count
// its reply reported (n; 0 when it reported none or no reply came) and
// limit, the most the call could have carried: n when 1 ≤ n ≤ limit, else
// counted(), the call's prompt as counted here. A negative, missing or
// absurd count is not believed, so no reply makes a call free or charges a
// caller for tokens that were never sent; counted runs only then.
func Reported(n int64, limit int, counted func() int) int {
	if n >= 1 && n <= int64(limit) {
		return int(n)
	}
	return counted()
}

// ReportedOutput is the output tokens of a reply that reported n: n when
// 0 ≤ n ≤ MaxOutput, else 0 (unknown). Output tokens are shown, not
// charged.
func ReportedOutput(n int64) int {
	if n < 0 || n > MaxOutput {
		return 0
	}
	return int(n)
}

// MaxContext is the most input tokens one model call is believed to read:
// more than any model's context holds. An upstream that decides questions
// itself may read the state once per question, so its limit is this many
// a question.
const MaxContext = 1 << 21

// BytesLimit is the most input tokens a call of size bytes can carry: a
// token covers at least one byte of what was sent, and a chat template adds
// a few tokens of its own to each message, allowed for generously here.
func BytesLimit(size int) int { return size + 1024 }
