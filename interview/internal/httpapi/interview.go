package httpapi

import (
	"net/http"
	"strconv"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/judgeworks/interview/internal/interviewer"
	"github.com/judgeworks/interview/internal/interviews"
	"github.com/judgeworks/interview/internal/problem"
	"github.com/judgeworks/interview/internal/report"
)

type startResponse struct {
	SessionID string               `json:"sessionId"`
	Welcome   string               `json:"welcome"`
	Question  interviewer.Question `json:"question"`
	Mode      string               `json:"mode"`
}

type answerRequest struct {
	SessionID  string `json:"sessionId"`
	QuestionID string `json:"questionId"`
	Answer     string `json:"answer"`
	// RecordingSeconds is set for an answer that was dictated or recorded.
	RecordingSeconds *float64 `json:"recordingSeconds"`
}

type answerResponse struct {
	Evaluation     interviewer.Evaluation `json:"evaluation"`
	NextQuestion   *interviewer.Question  `json:"nextQuestion"`
	IsLastQuestion bool                   `json:"isLastQuestion"`
}

type finishRequest struct {
	SessionID string `json:"sessionId"`
}

// session is GET /api/interview/:id: everything the page needs to resume.
type session struct {
	SessionID       string                `json:"sessionId"`
	ID              string                `json:"_id"`
	Status          string                `json:"status"`
	Mode            string                `json:"mode"`
	CandidateName   string                `json:"candidateName"`
	Role            string                `json:"role"`
	Experience      string                `json:"experience"`
	Difficulty      string                `json:"difficulty"`
	TotalQuestions  int                   `json:"totalQuestions"`
	CurrentQuestion *interviewer.Question `json:"currentQuestion"`
	QuestionNumber  int                   `json:"questionNumber"`
	QuestionResults []interviewer.Result  `json:"questionResults"`
	Report          *report.Report        `json:"report"`
	CreatedAt       time.Time             `json:"createdAt"`
	CompletedAt     *time.Time            `json:"completedAt"`
}

type historyItem struct {
	ID                 string    `json:"_id"`
	CandidateName      string    `json:"candidateName"`
	Role               string    `json:"role"`
	Experience         string    `json:"experience"`
	Difficulty         string    `json:"difficulty"`
	TotalQuestions     int       `json:"totalQuestions"`
	AnsweredQuestions  int       `json:"answeredQuestions"`
	OverallScore       int       `json:"overallScore"`
	TechnicalAccuracy  int       `json:"technicalAccuracy"`
	CommunicationScore int       `json:"communicationScore"`
	Date               time.Time `json:"date"`
}

// activeItem is one entry of GET /api/interview/active. questionNumber is
// the question being asked, as in the session; 0 once all are answered.
type activeItem struct {
	ID                string    `json:"_id"`
	CandidateName     string    `json:"candidateName"`
	Role              string    `json:"role"`
	Experience        string    `json:"experience"`
	Difficulty        string    `json:"difficulty"`
	TotalQuestions    int       `json:"totalQuestions"`
	QuestionNumber    int       `json:"questionNumber"`
	AnsweredQuestions int       `json:"answeredQuestions"`
	CreatedAt         time.Time `json:"createdAt"`
}

func (a *API) start(c echo.Context) error {
	uid, err := a.UserID(c)
	if err != nil {
		return err
	}
	var setup interviewer.Setup
	if err := readJSON(c, &setup); err != nil {
		return err
	}
	st, err := a.d.Interviews.Start(c.Request().Context(), uid, setup)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusCreated, startResponse{SessionID: st.ID, Welcome: st.Welcome, Question: st.First, Mode: a.d.Interviews.Mode()})
}

func (a *API) get(c echo.Context) error {
	uid, err := a.UserID(c)
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
		CurrentQuestion: iv.Current, QuestionResults: iv.Results, Report: iv.Report,
		CreatedAt: iv.CreatedAt, CompletedAt: iv.CompletedAt,
	}
	if iv.Current != nil {
		s.QuestionNumber = len(iv.Results) + 1
	}
	return c.JSON(http.StatusOK, s)
}

func (a *API) answer(c echo.Context) error {
	uid, err := a.UserID(c)
	if err != nil {
		return err
	}
	var req answerRequest
	if err := readJSON(c, &req); err != nil {
		return err
	}
	res, err := a.d.Interviews.Answer(c.Request().Context(), uid, req.SessionID, req.QuestionID, req.Answer, req.RecordingSeconds)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, answerResponse{Evaluation: res.Evaluation, NextQuestion: res.Next, IsLastQuestion: res.Next == nil})
}

func (a *API) finish(c echo.Context) error {
	uid, err := a.UserID(c)
	if err != nil {
		return err
	}
	var req finishRequest
	if err := readJSON(c, &req); err != nil {
		return err
	}
	rep, err := a.d.Interviews.Finish(c.Request().Context(), uid, req.SessionID)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, rep)
}

func (a *API) history(c echo.Context) error {
	uid, err := a.UserID(c)
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
			return 0, time.Time{}, problem.New(problem.Invalid, "limit must be a whole number from 1 to %d", interviews.MaxPage)
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
			return 0, time.Time{}, problem.New(problem.Invalid, "before must be a date such as 2026-03-01 or a time such as 2026-03-01T12:00:00Z")
		}
		before = t
	}
	return limit, before, nil
}

func (a *API) active(c echo.Context) error {
	uid, err := a.UserID(c)
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
			item.QuestionNumber = iv.Answered + 1
		}
		out = append(out, item)
	}
	return c.JSON(http.StatusOK, out)
}

func (a *API) discard(c echo.Context) error {
	uid, err := a.UserID(c)
	if err != nil {
		return err
	}
	if err := a.d.Interviews.Discard(c.Request().Context(), uid, c.Param("id")); err != nil {
		return err
	}
	return c.NoContent(http.StatusNoContent)
}
