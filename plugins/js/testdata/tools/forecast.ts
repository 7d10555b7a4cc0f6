import { tool } from "@opencode-ai/plugin"

// Calls the embedder's host function named by args.fn; a refusal the host
// gives is returned as text with its kind, except a permission refusal,
// which fails the call.
export default tool({
  description: "Call a host function",
  args: { fn: tool.schema.string(), city: tool.schema.any() },
  async execute(args, context) {
    try {
      const r = await context.callHost(args.fn, { city: args.city })
      return JSON.stringify(r)
    } catch (e) {
      if (["denied", "rejected", "corrected"].includes(e.kind)) throw e
      return `host error ${e.kind}: ${e.message}`
    }
  },
})
