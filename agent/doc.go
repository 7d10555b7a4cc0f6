// Package agent is toolhost's agent loop: it connects the tool registry to
// a model behind any OpenAI-compatible Chat Completions endpoint (OpenAI,
// Azure, Ollama, vLLM, llama.cpp's server, OpenRouter), as OpenCode's
// session processor does.
//
// One turn (Runner.Run): resolve the agent's tools (the registry applies the
// model, config and permission filters), send them as function tools after
// the provider's schema transform (TransformSchema: Gemini, OpenAI strict
// mode, Anthropic), stream the answer, run the tool calls — concurrently
// when the model asked for several — through Registry.Call, send the
// results back, and repeat until the model answers without tools, the step
// limit is reached, or a person rejects a permission request. Along the
// way it repairs tool names in the wrong case, leaves unknown tools and
// broken arguments to the registry's invalid routing, and asks permission
// doom_loop when the model repeats the same call three times in a row.
// Everything is reported as Events and saved in the session store
// (namespace TranscriptNamespace), so a session can be continued later or
// by another process. Runner also runs subagents for the task tool
// (Runner.RunSubagent).
//
// The model client is github.com/openai/openai-go/v3, the official SDK: it
// speaks every OpenAI-compatible endpoint, retries rate limits and server
// errors, and its ChatCompletionAccumulator assembles streamed tool calls
// whose arguments arrive in pieces. Only the Chat Completions API is used,
// since that is what every compatible server implements; so toolhost
// imports a copy of the SDK that keeps chat completions alone
// (internal/third_party/openai: upstream's release, the other services'
// files left out, one patch to the client): the stripped binary is a
// third smaller and a cold build of this package half the CPU
// (BENCHMARKS.md, "Getting it"). No exported identifier of this package
// names one of the SDK's types.
//
// Files over 500 lines, and why they stay whole: loop.go is the loop
// itself — a step, its streaming, its tool calls, its stopping rules — read
// top to bottom as one story, with loop_test.go as its scenario table.
//
// This package is a front end: it imports runtime and builtins (for the
// task tool's request types), never cli or host; builtins must not import
// it.
package agent
