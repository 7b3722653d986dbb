"""URLs of the memory API."""

urlpatterns: list = []
