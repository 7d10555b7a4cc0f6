import { tool } from "@opencode-ai/plugin"

// A JS tool that asks its host for the weather through the host function
// the embedding program adds (../main.go). context.callHost resolves to
// the function's result, or throws an Error whose .kind says why
// ("denied", "rejected", "unknown", "invalid", "failed").
export default tool({
  description: "Today's sky over a city, from the host",
  args: { city: tool.schema.string() },
  async execute(args, context) {
    const f = await context.callHost("weather", { city: args.city })
    return `${f.city}: ${f.sky}`
  },
})
