import { tool } from "@opencode-ai/plugin"

export default tool({
  description: "Greet someone",
  args: {
    name: tool.schema.string().describe("who to greet"),
    times: tool.schema.number().int().min(1).max(5).default(1),
    style: tool.schema.enum(["plain", "shout"]).default("plain"),
    tags: tool.schema.array(tool.schema.string()).optional(),
  },
  async execute(args, context) {
    const hello = args.style === "shout" ? `HELLO ${args.name.toUpperCase()}!` : `hello ${args.name}`
    const tags = args.tags ? ` [${args.tags.join(",")}]` : ""
    return Array(args.times).fill(hello).join(" ") + tags + ` (agent ${context.agent}, session ${context.sessionID})`
  },
})

export const count = tool({
  description: "Count the letters of a word",
  args: { word: tool.schema.string() },
  async execute(args) {
    return { title: `count ${args.word}`, output: String(args.word.length), metadata: { letters: args.word.length } }
  },
})
