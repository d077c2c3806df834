package auth

import (
	"strings"
	"testing"

	"golang.org/x/crypto/bcrypt"
)

func TestPassword(t *testing.T) {
	h, err := HashPassword("correct horse")
	if err != nil {
		t.Fatal(err)
	}
	if cost, _ := bcrypt.Cost([]byte(h)); cost != PasswordCost {
		t.Fatalf("cost %d, want %d", cost, PasswordCost)
	}
	if !CheckPassword(h, "correct horse") {
		t.Fatal("right password refused")
	}
	if CheckPassword(h, "correct horsf") {
		t.Fatal("wrong password accepted")
	}
	if CheckPassword("", "") || CheckPassword("", "no account has this password") {
		t.Fatal("dummy hash path matched")
	}
	if _, err := HashPassword(strings.Repeat("x", 73)); err != ErrPasswordTooLong {
		t.Fatalf("73-byte password: %v", err)
	}
}
