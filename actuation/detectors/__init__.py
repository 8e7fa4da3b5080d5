"""Pattern detectors, one small module each behind one interface (`base.Detector`),
registered from `ActuationConfig.ready()`."""
