"""URLs of the sessions API."""

urlpatterns: list = []
