package openai_test

import openai "github.com/toolhost/toolhost/internal/third_party/openai"

// Existing consumers may use the published positional field order.
var releasedChoice openai.ChatCompletionChunkChoice
var _ = openai.ChatCompletionChunkChoice{
	releasedChoice.Delta,
	releasedChoice.FinishReason,
	releasedChoice.Index,
	releasedChoice.Logprobs,
	releasedChoice.JSON,
}
