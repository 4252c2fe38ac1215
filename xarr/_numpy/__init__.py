"""The NumPy / Array API frontend (xa.*): NumPy-semantics functions built on the op families."""
