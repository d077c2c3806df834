module github.com/judgeworks/deploy

go 1.26

require github.com/compose-spec/compose-go/v2 v2.16.2 // indirect
