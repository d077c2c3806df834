package httpapi

import (
	"context"
	"net/http"
	"strconv"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/judgeworks/interview"
	"github.com/judgeworks/interview/internal/interviews"
)

// startRequest is POST /api/interview/start. FollowUps is a pointer so
// that an absent setting (the default) differs from 0 (none).
type startRequest struct {
	CandidateName  string `json:"candidateName"`
	Role           string `json:"role"`
	Experience     string `json:"experience"`
	Difficulty     string `json:"difficulty"`
	TotalQuestions int    `json:"totalQuestions"`
	JobDescription string `json:"jobDescription"`
	FollowUps      *int   `json:"followUps"`
}

type startResponse struct {
	SessionID string             `json:"sessionId"`
	Welcome   string             `json:"welcome"`
	Question  interview.Question `json:"question"`
	Mode      string             `json:"mode"`
}

type answerRequest struct {
	SessionID  string `json:"sessionId"`
	QuestionID string `json:"questionId"`
	Answer     string `json:"answer"`
	// RecordingSeconds is set for an answer that was dictated or recorded.
	RecordingSeconds *float64 `json:"recordingSeconds"`
}

// answerResponse carries answeredQuestions, the main questions answered
// with this answer, so that the page shows the server's count.
type answerResponse struct {
	Evaluation        interview.Evaluation `json:"evaluation"`
	NextQuestion      *interview.Question  `json:"nextQuestion"`
	IsLastQuestion    bool                 `json:"isLastQuestion"`
	AnsweredQuestions int                  `json:"answeredQuestions"`
}

// retryResponse carries the question now being asked: a follow-up asked
// on the first try is asked again of the better attempt, so it may have
// changed or given way to the next main question (null: all answered).
type retryResponse struct {
	Evaluation    interview.Evaluation `json:"evaluation"`
	PreviousScore int                  `json:"previousScore"`
	NextQuestion  *interview.Question  `json:"nextQuestion"`
}

type finishRequest struct {
	SessionID string `json:"sessionId"`
}

type shareResponse struct {
	Token string `json:"token"`
	URL   string `json:"url"`
}

// sharedReport is GET /api/shared/:token: the report and the setup it was
// taken with, nothing that names the person: the share panel promises the
// report and nothing else of theirs, so not even the name typed at the
// start.
type sharedReport struct {
	interview.Report
	Interview sharedSetup `json:"interview"`
}

type sharedSetup struct {
	Role           string    `json:"role"`
	Experience     string    `json:"experience"`
	Difficulty     string    `json:"difficulty"`
	TotalQuestions int       `json:"totalQuestions"`
	CompletedAt    time.Time `json:"completedAt"`
}

// session is GET /api/interview/:id: everything the page needs to resume.
type session struct {
	SessionID       string              `json:"sessionId"`
	ID              string              `json:"_id"`
	Status          string              `json:"status"`
	Mode            string              `json:"mode"`
	CandidateName   string              `json:"candidateName"`
	Role            string              `json:"role"`
	Experience      string              `json:"experience"`
	Difficulty      string              `json:"difficulty"`
	TotalQuestions  int                 `json:"totalQuestions"`
	FollowUps       int                 `json:"followUps"`
	Requirements    []string            `json:"requirements"`
	CurrentQuestion *interview.Question `json:"currentQuestion"`
	// QuestionNumber is the main question being asked (for a follow-up,
	// its main question's); 0 when none is.
	QuestionNumber int `json:"questionNumber"`
	// AnsweredQuestions is how many main questions are answered
	// (follow-ups do not count), the server's one count of it.
	AnsweredQuestions int                `json:"answeredQuestions"`
	QuestionResults   []interview.Result `json:"questionResults"`
	Report            *interview.Report  `json:"report"`
	// Shared says a link to the report exists (its token cannot be shown
	// again: only its digest is kept).
	Shared      bool       `json:"shared"`
	CreatedAt   time.Time  `json:"createdAt"`
	CompletedAt *time.Time `json:"completedAt"`
}

type historyItem struct {
	ID                 string    `json:"_id"`
	CandidateName      string    `json:"candidateName"`
	Role               string    `json:"role"`
	Experience         string    `json:"experience"`
	Difficulty         string    `json:"difficulty"`
	TotalQuestions     int       `json:"totalQuestions"`
	AnsweredQuestions  int       `json:"answeredQuestions"`
	OverallScore       *int      `json:"overallScore"`
	TechnicalAccuracy  *int      `json:"technicalAccuracy"`
	CommunicationScore *int      `json:"communicationScore"`
	Date               time.Time `json:"date"`
}

// activeItem is one entry of GET /api/interview/active. questionNumber is
// the main question being asked, as in the session; 0 once all are
// answered. followUp says the question being asked is a follow-up of it.
type activeItem struct {
	ID                string    `json:"_id"`
	CandidateName     string    `json:"candidateName"`
	Role              string    `json:"role"`
	Experience        string    `json:"experience"`
	Difficulty        string    `json:"difficulty"`
	TotalQuestions    int       `json:"totalQuestions"`
	QuestionNumber    int       `json:"questionNumber"`
	FollowUp          bool      `json:"followUp"`
	AnsweredQuestions int       `json:"answeredQuestions"`
	CreatedAt         time.Time `json:"createdAt"`
}

func (a *API) start(c echo.Context) error {
	uid, req, err := userAndBody[startRequest](a, c)
	if err != nil {
		return err
	}
	setup := interview.Setup{
		CandidateName: req.CandidateName, Role: req.Role, Experience: req.Experience, Difficulty: req.Difficulty,
		TotalQuestions: req.TotalQuestions, JobDescription: req.JobDescription, FollowUps: interviews.DefaultFollowUps,
	}
	if req.FollowUps != nil {
		setup.FollowUps = *req.FollowUps
	}
	st, err := a.d.Interviews.Start(c.Request().Context(), uid, setup)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusCreated, startResponse{SessionID: st.ID, Welcome: st.Welcome, Question: st.First, Mode: a.d.Interviews.Mode()})
}

func (a *API) get(c echo.Context) error {
	uid, err := a.userID(c)
	if err != nil {
		return err
	}
	iv, err := a.d.Interviews.Get(c.Request().Context(), uid, c.Param("id"))
	if err != nil {
		return err
	}
	s := session{
		SessionID: iv.ID, ID: iv.ID, Status: iv.Status, Mode: a.d.Interviews.Mode(),
		CandidateName: iv.Setup.CandidateName, Role: iv.Setup.Role, Experience: iv.Setup.Experience,
		Difficulty: iv.Setup.Difficulty, TotalQuestions: iv.Setup.TotalQuestions,
		FollowUps: iv.Setup.FollowUps, Requirements: iv.Requirements,
		CurrentQuestion: iv.Current, QuestionResults: iv.Results, Report: iv.Report,
		Shared: iv.Shared, CreatedAt: iv.CreatedAt, CompletedAt: iv.CompletedAt, AnsweredQuestions: iv.Answered,
	}
	if iv.Current != nil {
		s.QuestionNumber = questionNumber(iv.Answered, iv.Current.IsFollowUp())
	}
	return c.JSON(http.StatusOK, s)
}

// questionNumber is the number of the main question being asked after
// answered main questions: the next one, or for a follow-up the last one.
func questionNumber(answered int, followUp bool) int {
	if followUp {
		return answered
	}
	return answered + 1
}

func (a *API) answer(c echo.Context) error {
	uid, req, err := userAndBody[answerRequest](a, c)
	if err != nil {
		return err
	}
	res, err := a.d.Interviews.Answer(c.Request().Context(), uid, req.SessionID, req.QuestionID, req.Answer, req.RecordingSeconds)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, answerResponse{Evaluation: res.Evaluation, NextQuestion: res.Next, IsLastQuestion: res.Next == nil,
		AnsweredQuestions: res.AnsweredQuestions})
}

func (a *API) retry(c echo.Context) error {
	uid, req, err := userAndBody[answerRequest](a, c)
	if err != nil {
		return err
	}
	res, err := a.d.Interviews.Retry(c.Request().Context(), uid, req.SessionID, req.QuestionID, req.Answer)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, retryResponse{Evaluation: res.Evaluation, PreviousScore: res.PreviousScore, NextQuestion: res.Next})
}

func (a *API) finish(c echo.Context) error {
	uid, req, err := userAndBody[finishRequest](a, c)
	if err != nil {
		return err
	}
	rep, err := a.d.Interviews.Finish(c.Request().Context(), uid, req.SessionID)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, rep)
}

func (a *API) history(c echo.Context) error {
	uid, err := a.userID(c)
	if err != nil {
		return err
	}
	limit, before, err := historyPage(c)
	if err != nil {
		return err
	}
	list, err := a.d.Interviews.History(c.Request().Context(), uid, before, limit)
	if err != nil {
		return err
	}
	out := make([]historyItem, 0, len(list))
	for _, h := range list {
		out = append(out, historyItem{
			ID: h.ID, CandidateName: h.Setup.CandidateName, Role: h.Setup.Role, Experience: h.Setup.Experience,
			Difficulty: h.Setup.Difficulty, TotalQuestions: h.Setup.TotalQuestions, AnsweredQuestions: h.Answered,
			OverallScore: h.OverallScore, TechnicalAccuracy: h.TechnicalAccuracy, CommunicationScore: h.CommunicationScore,
			Date: h.CompletedAt,
		})
	}
	return c.JSON(http.StatusOK, out)
}

// historyPage reads ?limit (1 to interviews.MaxPage, default
// interviews.DefaultPage) and ?before: a time in RFC 3339 (the date of the
// last item of the previous page) or a calendar date, meaning its midnight
// UTC.
func historyPage(c echo.Context) (int, time.Time, error) {
	limit := 0
	if v := c.QueryParam("limit"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 || n > interviews.MaxPage {
			return 0, time.Time{}, interview.Errorf(interview.Invalid, "limit must be a whole number from 1 to %d", interviews.MaxPage)
		}
		limit = n
	}
	var before time.Time
	if v := c.QueryParam("before"); v != "" {
		t, err := time.Parse(time.RFC3339Nano, v)
		if err != nil {
			t, err = time.Parse(time.DateOnly, v)
		}
		if err != nil || t.IsZero() {
			return 0, time.Time{}, interview.Errorf(interview.Invalid, "before must be a date such as 2026-03-01 or a time such as 2026-03-01T12:00:00Z")
		}
		before = t
	}
	return limit, before, nil
}

// families says which question families an interview for ?role would
// draw from, so the setup page can say so before it starts.
func (a *API) families(c echo.Context) error {
	if _, err := a.userID(c); err != nil {
		return err
	}
	f, err := a.d.Interviews.Families(c.QueryParam("role"))
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, map[string]any{"families": f.Names, "general": f.General})
}

func (a *API) active(c echo.Context) error {
	uid, err := a.userID(c)
	if err != nil {
		return err
	}
	list, err := a.d.Interviews.InProgress(c.Request().Context(), uid)
	if err != nil {
		return err
	}
	out := make([]activeItem, 0, len(list))
	for _, iv := range list {
		item := activeItem{
			ID: iv.ID, CandidateName: iv.Setup.CandidateName, Role: iv.Setup.Role, Experience: iv.Setup.Experience,
			Difficulty: iv.Setup.Difficulty, TotalQuestions: iv.Setup.TotalQuestions, AnsweredQuestions: iv.Answered,
			CreatedAt: iv.CreatedAt,
		}
		if iv.Asking {
			item.QuestionNumber, item.FollowUp = questionNumber(iv.Answered, iv.FollowUp), iv.FollowUp
		}
		out = append(out, item)
	}
	return c.JSON(http.StatusOK, out)
}

func (a *API) discard(c echo.Context) error { return a.actOn(c, a.d.Interviews.Discard) }

func (a *API) unshare(c echo.Context) error { return a.actOn(c, a.d.Interviews.Unshare) }

// actOn answers 204 once act has done its work on the signed-in user's
// interview :id.
func (a *API) actOn(c echo.Context, act func(ctx context.Context, userID, id string) error) error {
	uid, err := a.userID(c)
	if err != nil {
		return err
	}
	if err := act(c.Request().Context(), uid, c.Param("id")); err != nil {
		return err
	}
	return c.NoContent(http.StatusNoContent)
}

func (a *API) share(c echo.Context) error {
	uid, err := a.userID(c)
	if err != nil {
		return err
	}
	token, err := a.d.Interviews.Share(c.Request().Context(), uid, c.Param("id"))
	if err != nil {
		return err
	}
	// The page's own origin as the client reached it; the link is shown
	// only to the owner who asked for it.
	url := c.Scheme() + "://" + c.Request().Host + "/shared/" + token
	return c.JSON(http.StatusCreated, shareResponse{Token: token, URL: url})
}

// shared is GET /api/shared/:token, with no session: the report a link
// names. Lookups that find nothing are limited per client network.
func (a *API) shared(c echo.Context) error {
	h := c.Response().Header()
	// The token is in the address: keep the answer out of caches, the
	// address out of Referer headers and the page out of search engines.
	h.Set("Cache-Control", "no-store")
	h.Set("Referrer-Policy", "no-referrer")
	h.Set("X-Robots-Tag", "noindex")
	token := c.Param("token")
	if !interviews.ShareTokenValid(token) {
		return interview.Errorf(interview.NotFound, "this link does not exist or was withdrawn")
	}
	found := func(bool) {}
	if a.d.SharedLookups != nil {
		var err error
		if found, err = a.d.SharedLookups.Begin(c.Request().Context(), c.RealIP()); err != nil {
			return err
		}
	}
	rep, err := a.d.Interviews.Shared(c.Request().Context(), token)
	found(err == nil)
	if err != nil {
		return err
	}
	st := rep.Setup
	return c.JSON(http.StatusOK, sharedReport{Report: rep.Report, Interview: sharedSetup{
		Role: st.Role, Experience: st.Experience, Difficulty: st.Difficulty,
		TotalQuestions: st.TotalQuestions, CompletedAt: rep.CompletedAt,
	}})
}
