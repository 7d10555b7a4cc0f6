module github.com/toolhost/toolhost/sdk-guest/go

go 1.24
