"""Context assembly's pure parts (no ORM): the token estimate, the fence, and packing."""
