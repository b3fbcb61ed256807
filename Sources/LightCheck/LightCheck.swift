// LightCheck: the light-sensor verification scheduler (pure; see docs/ once written).
import MTKTangibles
