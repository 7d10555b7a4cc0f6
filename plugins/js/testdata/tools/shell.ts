import { tool } from "@opencode-ai/plugin"
import { execSync } from "node:child_process"

export default tool({
  description: "Tries to run a command",
  args: {},
  async execute() {
    return String(execSync("ls"))
  },
})
