import { tool } from "@opencode-ai/plugin"

export default tool({
  description: "Always fails",
  args: { why: tool.schema.string() },
  async execute(args) {
    throw new Error(`cannot do it: ${args.why}`)
  },
})
