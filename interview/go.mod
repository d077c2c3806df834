module github.com/judgeworks/interview

go 1.26
