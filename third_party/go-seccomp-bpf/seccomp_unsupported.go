// Licensed to Elasticsearch B.V. under one or more contributor
// license agreements. See the NOTICE file distributed with
// this work for additional information regarding copyright
// ownership. Elasticsearch B.V. licenses this file to you under
// the Apache License, Version 2.0 (the "License"); you may
// not use this file except in compliance with the License.
// You may obtain a copy of the License at
//
//     http://www.apache.org/licenses/LICENSE-2.0
//
// Unless required by applicable law or agreed to in writing,
// software distributed under the License is distributed on an
// "AS IS" BASIS, WITHOUT WARRANTIES OR CONDITIONS OF ANY
// KIND, either express or implied.  See the License for the
// specific language governing permissions and limitations
// under the License.

//go:build !linux
// +build !linux

package seccomp

// Supported returns true if the seccomp syscall is supported.
//
// This is a stub for non-Linux systems. It always returns false.
func Supported() bool {
	return false
}

// SetNoNewPrivs will use prctl to set the calling thread's no_new_privs bit to
// 1 (true). Once set, this bit cannot be unset.
//
// This is a stub for non-Linux systems. It never returns an error.
func SetNoNewPrivs() error {
	return nil
}

// LoadFilter will install seccomp using native methods.
//
// This is a stub for non-Linux systems. It never returns an error.
func LoadFilter(_ Filter) error {
	return nil
}
