export function defineConfig(config) {
  return config;
}
