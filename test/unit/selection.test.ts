import { createSelector, SELECTOR_NAMES } from '../../daemon/evolution/selection/createSelector';
import { parentSelectorConformance } from '../conformance/parentSelector';

for (const name of SELECTOR_NAMES) parentSelectorConformance(name, () => createSelector(name));
