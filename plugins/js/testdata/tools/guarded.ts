import { tool } from "@opencode-ai/plugin"

export default tool({
  description: "Deploy after asking",
  args: { target: tool.schema.string() },
  async execute(args, context) {
    context.metadata({ title: "asking", metadata: { step: 1 } })
    await context.ask({ permission: "deploy", patterns: [args.target], always: [args.target], metadata: {} })
    await new Promise((resolve) => setTimeout(resolve, 5))
    context.metadata({ title: "deploying", metadata: { step: 2 } })
    return `deployed ${args.target}`
  },
})
