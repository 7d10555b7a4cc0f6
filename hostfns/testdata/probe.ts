import { tool } from "@opencode-ai/plugin"
import { writeFileSync } from "node:fs"

// The JS guest of hostfns' cross-engine test: fetch a URL, log a line or
// write a file (url is its path), and return what happened as JSON, a
// refusal included.
export default tool({
  description: "Probe the host functions every guest shares",
  args: { op: tool.schema.string(), url: tool.schema.string(), level: tool.schema.string(), msg: tool.schema.string() },
  async execute(a) {
    if (a.op === "log") {
      console[a.level](a.msg)
      return JSON.stringify({})
    }
    try {
      if (a.op === "write") {
        writeFileSync(a.url, a.msg)
        return JSON.stringify({ status: 1 })
      }
      const r = await fetch(a.url)
      return JSON.stringify({ status: r.status, body: await r.text() })
    } catch (e) {
      return JSON.stringify({ error: e.message })
    }
  },
})
