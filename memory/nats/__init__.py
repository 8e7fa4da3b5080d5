"""The NATS bus (docs/nats.md): Observations published on JetStream from the outbox, recall
and context answered on request-reply subjects. A thin adapter over the services."""
