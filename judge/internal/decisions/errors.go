package decisions

import (
	"strconv"
	"strings"

	"github.com/judgeworks/shared/systemone"
)

// ErrorBody is the error body of /v1/decisions, the shape OpenAI's SDKs
// read into their error type (openai-go: *openai.Error). type and code are
// the error_type /v1/systemone would give, so one list documents both; a
// validation error has type validation_error, its first problem's kind as
// code and that problem's path as param.
type ErrorBody struct {
	Error ErrorDetail `json:"error"`
}

// ErrorDetail is the error of an ErrorBody.
type ErrorDetail struct {
	Message string  `json:"message"`
	Type    string  `json:"type"`
	Code    string  `json:"code"`
	Param   *string `json:"param"`
}

// FaultBody is the body of a failure of kind (a judge error_type).
func FaultBody(kind, msg string) ErrorBody {
	return ErrorBody{ErrorDetail{Message: msg, Type: kind, Code: kind}}
}

// ValidationBody is the body of a request refused for its problems: each
// problem in the message as "param: message", the first one's kind and
// param beside it.
func ValidationBody(ve *systemone.ValidationError) ErrorBody {
	parts := make([]string, len(ve.Items))
	for i, it := range ve.Items {
		parts[i] = it.Msg
		if p := Param(it.Loc); p != "" {
			parts[i] = p + ": " + it.Msg
		}
	}
	d := ErrorDetail{Message: strings.Join(parts, "; "), Type: systemone.TypeValidation, Code: "invalid"}
	if len(ve.Items) > 0 {
		d.Code = ve.Items[0].Type
		if p := Param(ve.Items[0].Loc); p != "" {
			d.Param = &p
		}
	}
	return ErrorBody{d}
}

// Param writes a field path as OpenAI names parameters:
// ["body", "questions", "2", "choices"] is questions[2].choices.
func Param(loc []string) string {
	var b strings.Builder
	for i, part := range loc {
		if i == 0 && part == "body" {
			continue
		}
		if _, err := strconv.Atoi(part); err == nil && b.Len() > 0 {
			b.WriteString("[" + part + "]")
			continue
		}
		if b.Len() > 0 {
			b.WriteByte('.')
		}
		b.WriteString(part)
	}
	return b.String()
}
