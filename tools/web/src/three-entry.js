// The only third-party code of the replay page: three.js and its orbit controls, exposed as
// one global so that the page's own script (assets/web/replay.js) stays plain, readable JS.
import * as THREE from "three";
import { OrbitControls } from "three/examples/jsm/controls/OrbitControls.js";

globalThis.PISA_THREE = { THREE, OrbitControls };
