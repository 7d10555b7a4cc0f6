module forecast

go 1.24

require github.com/toolhost/toolhost/sdk-guest/go v0.0.0

replace github.com/toolhost/toolhost/sdk-guest/go => ../../../../sdk-guest/go
