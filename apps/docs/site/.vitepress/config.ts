/**
 * The VitePress configuration of the documentation site: English at the root, Chinese under
 * /zh/, one sidebar per language built from the same page list, local search (no service to
 * call), the default theme's dark mode and phone layout. The site is static: `vitepress build
 * site` writes .vitepress/dist for the URL prefix /docs/, where both `penguin docs` and the
 * server (`penguin server`/`web`, apps/server/src/web/docs-site.ts) serve it, so one build
 * fits both. Pages link to each other only;
 * the link check (test/links.test.ts) keeps it that way.
 */
import { defineConfig, type DefaultTheme } from "vitepress";

/** [path without language prefix, English title, Chinese title] per section. */
const SECTIONS: { en: string; zh: string; pages: [string, string, string][] }[] = [
  {
    en: "Start",
    zh: "开始",
    pages: [
      ["guide/quick-start", "Quick start", "快速开始"],
      ["guide/architecture", "Architecture", "架构"],
      ["guide/sessions-and-traces", "Sessions & traces", "Session 与 Trace"],
    ],
  },
  {
    en: "How it works",
    zh: "工作原理",
    pages: [
      ["guide/agent-loop", "The agent loop", "Agent 运行循环"],
      ["guide/omnimessage", "The OmniMessage protocol", "OmniMessage 协议"],
      ["guide/tools-and-approvals", "Tools & approvals", "工具与审批"],
      ["guide/security", "Security model", "安全模型"],
      ["guide/models", "Models & providers", "模型与提供方"],
      ["guide/replay", "Replay, time travel, fork, rewind", "回放、时间旅行、分叉与回退"],
    ],
  },
  {
    en: "Running it",
    zh: "运行",
    pages: [
      ["guide/server-and-web", "Server & web app", "服务器与 Web 应用"],
      ["guide/deployment", "Deployment", "部署"],
      ["guide/integrations", "Integrations", "集成"],
      ["guide/cli", "The CLI", "命令行"],
      ["guide/configuration", "Configuration", "配置"],
    ],
  },
  {
    en: "Reference (generated)",
    zh: "参考（自动生成）",
    pages: [
      ["reference/cli", "CLI reference", "CLI 参考"],
      ["reference/config", "Configuration reference", "配置参考"],
      ["reference/events", "Event reference", "事件参考"],
      ["reference/http", "HTTP reference", "HTTP 参考"],
    ],
  },
];

function sidebar(lang: "en" | "zh"): DefaultTheme.SidebarItem[] {
  const prefix = lang === "en" ? "/" : "/zh/";
  return SECTIONS.map((section) => ({
    text: section[lang],
    items: section.pages.map(([path, en, zh]) => ({ text: lang === "en" ? en : zh, link: `${prefix}${path}` })),
  }));
}

export const PAGE_PATHS: readonly string[] = SECTIONS.flatMap((s) => s.pages.map(([path]) => path));

export default defineConfig({
  title: "PenguinHarness",
  description: "An open-source agent harness with append-only traces and crash-safe resume",
  // The server serves the site beside the web app, under /docs/ (penguin docs uses the same prefix).
  base: "/docs/",
  lastUpdated: false,
  cleanUrls: false,
  // The generated references hold long tables; nothing here should call out of the machine.
  themeConfig: {
    search: { provider: "local" },
  },
  locales: {
    root: {
      label: "English",
      lang: "en",
      themeConfig: {
        nav: [
          { text: "Guide", link: "/guide/quick-start" },
          { text: "Reference", link: "/reference/cli" },
        ],
        sidebar: sidebar("en"),
      },
    },
    zh: {
      label: "简体中文",
      lang: "zh-CN",
      link: "/zh/",
      themeConfig: {
        nav: [
          { text: "指南", link: "/zh/guide/quick-start" },
          { text: "参考", link: "/zh/reference/cli" },
        ],
        sidebar: sidebar("zh"),
        outline: { label: "本页目录" },
        docFooter: { prev: "上一页", next: "下一页" },
        darkModeSwitchLabel: "外观",
        sidebarMenuLabel: "菜单",
        returnToTopLabel: "回到顶部",
        langMenuLabel: "切换语言",
      },
    },
  },
});
