import { tool } from "@opencode-ai/plugin"

export const spin = tool({
  description: "Loops forever",
  args: {},
  async execute() {
    for (;;) {}
  },
})

export const bomb = tool({
  description: "Allocates without end",
  args: {},
  async execute() {
    const keep: string[] = []
    for (let i = 0; ; i++) keep.push("x".repeat(1024) + i)
  },
})
