"""URLs of the knowledge API."""

urlpatterns: list = []
