import { tool } from "@opencode-ai/plugin"

// Asks the client's model to summarise args.text (MCP sampling, under
// the tool's "sampling" grant) and returns what the model said.
export default tool({
  description: "Summarise a text with the client's model",
  args: { text: tool.schema.string() },
  async execute(args, context) {
    const r = await context.sample({
      messages: [{ role: "user", content: { type: "text", text: "Summarise: " + args.text } }],
      maxTokens: 100,
    })
    return `${r.model}: ${r.content.text}`
  },
})
