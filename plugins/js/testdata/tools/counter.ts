import { tool } from "@opencode-ai/plugin"

let calls = 0

export default tool({
  description: "Counts its calls; waits so calls overlap",
  args: { label: tool.schema.string(), waitMs: tool.schema.number().default(0) },
  async execute(args) {
    calls++
    ;(globalThis as any).seen = ((globalThis as any).seen ?? "") + args.label
    await new Promise((r) => setTimeout(r, args.waitMs))
    return `${args.label}:${calls}:${(globalThis as any).seen}`
  },
})
