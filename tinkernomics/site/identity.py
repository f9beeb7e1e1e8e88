"""The site's identity, defined once for every feature (pipeline step 6): its name, the data
licence every download and API document carries, and the link-preview card of pages without a
chart (its size is the card every chart draws too)."""

from __future__ import annotations

SITE_NAME = "tinker-nomics"
LICENCE = "CC BY 4.0"
"""The catalog data's licence (code is MIT; pyproject.toml)."""
LICENCE_URL = "https://creativecommons.org/licenses/by/4.0/"
SITE_CARD = "assets/images/site-card.png"
"""The preview image of pages without a chart (drawn by the charts feature)."""
CARD_WIDTH_PX = 1200
CARD_HEIGHT_PX = 630
"""Link-preview cards, the size Open Graph and Twitter cards show best."""
