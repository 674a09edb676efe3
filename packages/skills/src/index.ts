// @penguin/skills: the builtin skill library (skills/<name>/SKILL.md) and the loader every
// skills folder is read with: front-matter parsing, validation and folder scanning.
export * from "./skill-meta.js";
export * from "./skill-file-error.js";
export * from "./front-matter.js";
export * from "./parse-skill.js";
export * from "./scan.js";
export * from "./library.js";
