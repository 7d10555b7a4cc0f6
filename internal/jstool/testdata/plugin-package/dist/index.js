export * from "./tool.js";
