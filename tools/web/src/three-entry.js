// The only third-party code of the web pages: three.js and its orbit controls, as one ES module
// that the tower's scene (assets/web/tower_scene.js) imports.
import * as THREE from "three";

export { THREE };
export { OrbitControls } from "three/examples/jsm/controls/OrbitControls.js";
