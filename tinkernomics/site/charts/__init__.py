"""Charts: ScaleRL curve specs, static SVG, embeds and chart exports."""
