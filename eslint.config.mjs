// ESLint flat config for the site's own scripts (`make lint`; see package.json). The scripts are
// classic browser scripts (no modules, no build step) run as shipped: the recommended rules, the
// browser's globals, and the ES2020 level Material's supported browsers all run.
import js from "@eslint/js";
import globals from "globals";

export default [
  {
    ignores: ["node_modules/", "site/", ".venv/", "tests/node_modules/", "benchmarks/",
              "tinkernomics/site/charts/static/"],
  },
  {
    files: ["site_overrides/assets/javascripts/*.js", "tinkernomics/site/charts/templates/*.js"],
    ...js.configs.recommended,
    languageOptions: {
      ecmaVersion: 2020,
      sourceType: "script",
      globals: { ...globals.browser, Plotly: "readonly" },
    },
    rules: {
      ...js.configs.recommended.rules,
      "no-unused-vars": ["error", { args: "after-used", caughtErrors: "none" }],
    },
  },
];
