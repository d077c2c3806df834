module github.com/judgeworks/judge

go 1.26
